package dev.txoutbox.sqs;

import dev.txoutbox.spi.RunOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Arranges the messages of one publish call into lanes of {@code SendMessageBatch} requests: the
 * requests of a lane are sent one after the other, the lanes all at once.
 *
 * <p>All events of one aggregate share a lane, in input order, so that the aggregate's next request
 * leaves only after its previous one was answered, and nothing more of the aggregate is sent once
 * one of its events failed. Aggregates are spread over as many lanes as full requests of their
 * queue would need (at most {@value #MAX_ENTRIES} entries and the batch byte limit each), largest
 * first, each to the lane with the fewest messages so far; an aggregate whose events go to several
 * queues is planned with the queue of its first event. Within a lane, each message joins the first
 * request of its queue with room that is not before the request holding the previous event of its
 * aggregate. The same plan serves standard and FIFO queues. Stateless and thread-safe.
 */
final class BatchPlanner {

  /** SQS's limit of entries per {@code SendMessageBatch}. */
  static final int MAX_ENTRIES = 10;

  private BatchPlanner() {}

  /**
   * The lanes for {@code entries} (in input order); each lane is a list of requests, each request a
   * list of entries bound for one queue, in input order.
   */
  static List<List<List<Entry>>> plan(List<Entry> entries, int maxBatchBytes) {
    Map<RunOrder.Aggregate, List<Entry>> runs = new LinkedHashMap<>();
    for (Entry e : entries) {
      runs.computeIfAbsent(e.aggregate(), a -> new ArrayList<>()).add(e);
    }
    Map<String, List<List<Entry>>> runsByQueue = new LinkedHashMap<>();
    for (List<Entry> run : runs.values()) {
      runsByQueue.computeIfAbsent(run.get(0).queue(), q -> new ArrayList<>()).add(run);
    }
    List<List<List<Entry>>> plan = new ArrayList<>();
    for (List<List<Entry>> queueRuns : runsByQueue.values()) {
      for (List<Entry> lane : spread(queueRuns, maxBatchBytes)) {
        plan.add(pack(lane, maxBatchBytes));
      }
    }
    return plan;
  }

  /** Spreads whole runs over lanes; returns the non-empty lanes, each in input order. */
  private static List<List<Entry>> spread(List<List<Entry>> runs, int maxBatchBytes) {
    int count = 0;
    long bytes = 0;
    for (List<Entry> run : runs) {
      count += run.size();
      for (Entry e : run) {
        bytes += e.size();
      }
    }
    int laneCount =
        (int)
            Math.max(
                1,
                Math.max(
                    (count + MAX_ENTRIES - 1) / MAX_ENTRIES,
                    (bytes + maxBatchBytes - 1) / maxBatchBytes));
    List<List<Entry>> lanes = new ArrayList<>(laneCount);
    PriorityQueue<Integer> emptiest =
        new PriorityQueue<>(
            Comparator.<Integer>comparingInt(i -> lanes.get(i).size()).thenComparingInt(i -> i));
    for (int i = 0; i < laneCount; i++) {
      lanes.add(new ArrayList<>());
      emptiest.add(i);
    }
    List<List<Entry>> largestFirst = new ArrayList<>(runs);
    largestFirst.sort(Comparator.comparingInt((List<Entry> run) -> run.size()).reversed());
    for (List<Entry> run : largestFirst) {
      int lane = emptiest.remove();
      lanes.get(lane).addAll(run);
      emptiest.add(lane);
    }
    List<List<Entry>> filled = new ArrayList<>();
    for (List<Entry> lane : lanes) {
      if (!lane.isEmpty()) {
        lane.sort(Comparator.comparingInt(Entry::index));
        filled.add(lane);
      }
    }
    return filled;
  }

  /**
   * Cuts one lane (in input order) into requests of one queue each, of at most {@value
   * #MAX_ENTRIES} entries and {@code maxBytes}: each entry joins the first request of its queue
   * with room that is not before the one holding the previous entry of its aggregate.
   */
  static List<List<Entry>> pack(List<Entry> lane, int maxBytes) {
    List<Request> requests = new ArrayList<>();
    Map<RunOrder.Aggregate, Integer> lastRequestOf = new HashMap<>();
    for (Entry e : lane) {
      int at = lastRequestOf.getOrDefault(e.aggregate(), 0);
      while (at < requests.size() && !requests.get(at).takes(e, maxBytes)) {
        at++;
      }
      if (at == requests.size()) {
        requests.add(new Request(e.queue()));
      }
      requests.get(at).add(e);
      lastRequestOf.put(e.aggregate(), at);
    }
    return requests.stream().map(r -> r.entries).toList();
  }

  /** A request being filled. */
  private static final class Request {
    private final String queue;
    private final List<Entry> entries = new ArrayList<>();
    private long bytes;

    Request(String queue) {
      this.queue = queue;
    }

    boolean takes(Entry e, int maxBytes) {
      return queue.equals(e.queue())
          && entries.size() < MAX_ENTRIES
          && (entries.isEmpty() || bytes + e.size() <= maxBytes);
    }

    void add(Entry e) {
      entries.add(e);
      bytes += e.size();
    }
  }
}
