package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BatchPlannerTest {

  private static final String QUEUE = "events";

  /** {@code count} entries of {@code size} bytes to {@link #QUEUE}, round robin over aggregates. */
  private static List<Entry> entries(int count, int aggregates, int size) {
    return entries(count, i -> "a" + (i % aggregates), size);
  }

  private static List<Entry> entries(int count, IntFunction<String> aggregateOf, int size) {
    List<Entry> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(entry(i, aggregateOf.apply(i), QUEUE, size));
    }
    return list;
  }

  private static Entry entry(int index, String aggregateId, String queue, int size) {
    return new Entry(index, message("t", aggregateId, "{}"), queue, Map.of(), size, null);
  }

  /** Each lane as the indexes of its requests' entries. */
  private static List<List<List<Integer>>> indexes(List<List<List<Entry>>> lanes) {
    return lanes.stream().map(BatchPlannerTest::requests).toList();
  }

  private static List<List<Integer>> requests(List<List<Entry>> lane) {
    return lane.stream().map(r -> r.stream().map(Entry::index).toList()).toList();
  }

  /** The lane (its position in the plan) of every entry's aggregate, by aggregate id. */
  private static Map<String, List<Integer>> lanesOfAggregates(List<List<List<Entry>>> lanes) {
    Map<String, List<Integer>> lanesOf = new HashMap<>();
    for (int l = 0; l < lanes.size(); l++) {
      for (List<Entry> request : lanes.get(l)) {
        for (Entry e : request) {
          lanesOf.computeIfAbsent(e.message().aggregateId(), a -> new ArrayList<>()).add(l);
        }
      }
    }
    return lanesOf;
  }

  @Test
  void sendsDistinctAggregatesAsParallelRequests() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(25, 25, 10), 1_000_000);

    assertThat(lanes).hasSize(3).allMatch(lane -> lane.size() == 1);
    assertThat(lanes).extracting(lane -> lane.get(0).size()).containsExactly(9, 8, 8);
  }

  @Test
  void packsALaneAtTheByteLimit() {
    assertThat(BatchPlanner.pack(entries(7, 7, 400), 1_000))
        .extracting(List::size)
        .containsExactly(2, 2, 2, 1);
  }

  @Test
  void aByteHeavyBatchGetsAsManyParallelLanesAsItsBytesNeed() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(6, 6, 1_700), 4_096);

    assertThat(lanes).hasSize(3).allSatisfy(lane -> assertThat(lane).singleElement());
  }

  @Test
  void spreadsAggregatesOverParallelLanesAndKeepsEachInOneLaneInOrder() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(100, 20, 10), 1_000_000);

    assertThat(lanes).hasSize(10);
    assertThat(lanesOfAggregates(lanes))
        .hasSize(20)
        .allSatisfy((a, ids) -> assertThat(ids).containsOnly(ids.get(0)));
    for (List<List<Entry>> lane : lanes) {
      assertThat(lane.stream().flatMap(List::stream).map(Entry::index).toList()).isSorted();
    }
  }

  @Test
  void putsOneBigAggregateInOneLaneOfConsecutiveRequests() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(35, 1, 10), 1_000_000);

    assertThat(indexes(lanes)).hasSize(1);
    assertThat(lanes.get(0)).extracting(List::size).containsExactly(10, 10, 10, 5);
    assertThat(lanes.get(0).stream().flatMap(List::stream).map(Entry::index).toList())
        .isSorted()
        .hasSize(35);
  }

  @Test
  void aRunLongerThanOneRequestBetweenOtherAggregatesHasALaneOfItsOwn() {
    // the shape of the contract's run: 20 events of one aggregate, every third event another one
    List<List<List<Entry>>> lanes =
        BatchPlanner.plan(entries(30, i -> i % 3 == 2 ? "single-" + i : "run", 10), 1_000_000);

    List<List<Entry>> runLane =
        lanes.stream()
            .filter(lane -> lane.get(0).get(0).message().aggregateId().equals("run"))
            .findFirst()
            .orElseThrow();
    assertThat(runLane)
        .as("the run alone, in two consecutive requests")
        .extracting(List::size)
        .containsExactly(10, 10);
    assertThat(runLane.stream().flatMap(List::stream))
        .allMatch(e -> e.message().aggregateId().equals("run"));
    assertThat(lanes).hasSize(3);
    assertThat(lanes).filteredOn(lane -> lane != runLane).allMatch(lane -> lane.size() == 1);
  }

  @Test
  void anEntryJoinsAnEarlierRequestWithRoomButNeverOneBeforeThePreviousOfItsAggregate() {
    // a0 and a1 do not fit in one request; b2 fits beside a0; so would the last entry, but if it
    // is a3 it must follow a1, and if it is b3 it must follow b2 only
    for (String last : List.of("a", "b")) {
      List<Entry> lane =
          List.of(
              entry(0, "a", QUEUE, 600),
              entry(1, "a", QUEUE, 600),
              entry(2, "b", QUEUE, 300),
              entry(3, last, QUEUE, 100));

      assertThat(requests(BatchPlanner.pack(lane, 1_000)))
          .as("last entry of %s", last)
          .containsExactly(
              last.equals("a") ? List.of(0, 2) : List.of(0, 2, 3),
              last.equals("a") ? List.of(1, 3) : List.of(1));
    }
  }

  @Test
  void anAggregateRoutedToTwoQueuesStaysInOneLaneInOrder() {
    List<Entry> entries =
        List.of(
            entry(0, "a", "q1", 10),
            entry(1, "b", "q1", 10),
            entry(2, "a", "q2", 10),
            entry(3, "a", "q1", 10),
            entry(4, "c", "q2", 10));

    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries, 1_000_000);

    List<Integer> lanesOfA = lanesOfAggregates(lanes).get("a");
    assertThat(lanesOfA).containsOnly(lanesOfA.get(0));
    List<List<Entry>> laneOfA = lanes.get(lanesOfA.get(0));
    assertThat(laneOfA)
        .as("one queue per request, a's events in order")
        .extracting(r -> r.get(0).queue())
        .containsExactly("q1", "q2", "q1");
    assertThat(requests(laneOfA)).containsExactly(List.of(0, 1), List.of(2), List.of(3));
    assertThat(lanes.stream().flatMap(List::stream).flatMap(List::stream).map(Entry::index))
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4);
  }

  @Test
  void aggregatesOfEachQueueArePlannedTogether() {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      entries.add(entry(i, "a" + i, i % 2 == 0 ? "q1" : "q2", 10));
    }

    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries, 1_000_000);

    assertThat(lanes)
        .hasSize(2)
        .allSatisfy(
            lane ->
                assertThat(lane)
                    .singleElement()
                    .satisfies(
                        r ->
                            assertThat(r)
                                .hasSize(10)
                                .extracting(Entry::queue)
                                .containsOnly(r.get(0).queue())));
    assertThat(lanes.stream().map(lane -> lane.get(0).get(0).queue()).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("q1", "q2");
  }
}
