package dev.txoutbox.sqs;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts the messages bound for one queue into {@code SendMessageBatch} requests of at most {@value
 * #MAX_ENTRIES} entries and at most the batch byte limit, arranged in lanes: the requests of a lane
 * are sent one after the other, the lanes all at once.
 *
 * <p>On a standard queue every request is a lane of its own. On a FIFO queue all messages of one
 * group share a lane, in input order, so a group's messages reach SQS in order; groups are spread
 * over as many lanes as full requests would need, each to the lane with the fewest messages so far.
 * Stateless and thread-safe.
 */
final class BatchPlanner {

  /** SQS's limit of entries per {@code SendMessageBatch}. */
  static final int MAX_ENTRIES = 10;

  private BatchPlanner() {}

  /** The lanes for {@code entries} (in input order); each lane is a list of requests. */
  static List<List<List<Entry>>> plan(List<Entry> entries, boolean fifo, int maxBatchBytes) {
    if (!fifo) {
      return cut(entries, maxBatchBytes).stream().map(List::of).toList();
    }
    Map<String, List<Entry>> groups = new LinkedHashMap<>();
    for (Entry e : entries) {
      groups.computeIfAbsent(e.groupId(), g -> new ArrayList<>()).add(e);
    }
    int laneCount = Math.max(1, (entries.size() + MAX_ENTRIES - 1) / MAX_ENTRIES);
    List<List<Entry>> lanes = new ArrayList<>();
    for (int i = 0; i < laneCount; i++) {
      lanes.add(new ArrayList<>());
    }
    for (List<Entry> group : groups.values()) {
      lanes.stream().min(Comparator.comparingInt(List::size)).orElseThrow().addAll(group);
    }
    List<List<List<Entry>>> plan = new ArrayList<>();
    for (List<Entry> lane : lanes) {
      if (!lane.isEmpty()) {
        lane.sort(Comparator.comparingInt(Entry::index));
        plan.add(cut(lane, maxBatchBytes));
      }
    }
    return plan;
  }

  /** Consecutive requests of at most {@value #MAX_ENTRIES} entries and {@code maxBytes}. */
  static List<List<Entry>> cut(List<Entry> entries, int maxBytes) {
    List<List<Entry>> batches = new ArrayList<>();
    List<Entry> current = new ArrayList<>();
    long bytes = 0;
    for (Entry e : entries) {
      if (!current.isEmpty() && (current.size() == MAX_ENTRIES || bytes + e.size() > maxBytes)) {
        batches.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(e);
      bytes += e.size();
    }
    if (!current.isEmpty()) {
      batches.add(current);
    }
    return batches;
  }
}
