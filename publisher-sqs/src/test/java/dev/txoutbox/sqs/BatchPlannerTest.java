package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BatchPlannerTest {

  private static List<Entry> entries(int count, int groups, int size) {
    List<Entry> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String group = "g" + (i % groups);
      list.add(new Entry(i, message("t", group, "{}"), Map.of(), size, group));
    }
    return list;
  }

  @Test
  void sendsEveryStandardRequestInItsOwnLane() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(25, 25, 10), false, 1_000_000);

    assertThat(lanes).hasSize(3).allMatch(lane -> lane.size() == 1);
    assertThat(lanes).extracting(lane -> lane.get(0).size()).containsExactly(10, 10, 5);
  }

  @Test
  void cutsAtTheByteLimit() {
    assertThat(BatchPlanner.cut(entries(7, 7, 400), 1_000))
        .extracting(List::size)
        .containsExactly(2, 2, 2, 1);
  }

  @Test
  void spreadsFifoGroupsOverParallelLanesAndKeepsEachGroupInOneLaneInOrder() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(100, 20, 10), true, 1_000_000);

    assertThat(lanes).hasSize(10);
    Map<String, List<Integer>> laneOfGroup =
        lanes.stream()
            .flatMap(
                lane -> {
                  int id = System.identityHashCode(lane);
                  return lane.stream().flatMap(List::stream).map(e -> Map.entry(e.groupId(), id));
                })
            .collect(
                Collectors.groupingBy(
                    Map.Entry::getKey,
                    Collectors.mapping(Map.Entry::getValue, Collectors.toList())));
    assertThat(laneOfGroup)
        .hasSize(20)
        .allSatisfy((g, ids) -> assertThat(ids).containsOnly(ids.get(0)));
    for (List<List<Entry>> lane : lanes) {
      assertThat(lane.stream().flatMap(List::stream).map(Entry::index).toList()).isSorted();
    }
  }

  @Test
  void putsOneBigFifoGroupInOneLaneOfConsecutiveRequests() {
    List<List<List<Entry>>> lanes = BatchPlanner.plan(entries(35, 1, 10), true, 1_000_000);

    assertThat(lanes).hasSize(1);
    assertThat(lanes.get(0)).extracting(List::size).containsExactly(10, 10, 10, 5);
  }
}
