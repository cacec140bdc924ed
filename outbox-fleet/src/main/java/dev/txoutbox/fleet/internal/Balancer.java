package dev.txoutbox.fleet.internal;

import dev.txoutbox.fleet.FleetOutbox;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides, from a {@link Snapshot}, which outboxes a node tries to take and which one it hands
 * back. Weight is the entry's configured {@link FleetOutbox#weight()}; a node's load is the sum of
 * the weights of the enabled outboxes it holds; the fair share is the total weight of the enabled
 * outboxes divided by the live nodes.
 *
 * <ul>
 *   <li>Take: while its load is below the fair share, a node takes free or expired outboxes (in an
 *       order of its own, so nodes scanning together rarely race for the same row; the database
 *       settles any race).
 *   <li>Hand back: a node holding at least one outbox's weight more than the fair share releases
 *       that outbox, at most one per scan, and only if it stays at or above the fair share after.
 *       It then never takes the outbox back at once (it is not below the share), and the node that
 *       takes it is not pushed above the share by a full outbox's weight, so nothing oscillates.
 * </ul>
 *
 * <p>Any free outbox is eventually taken: while one is free the held weight is below the total, so
 * some live node is below the fair share. Stateless and thread-safe.
 */
public final class Balancer {

  /** What to do now. */
  public record Plan(List<FleetOutbox> take, Optional<String> release) {}

  private Balancer() {}

  /**
   * The plan of node {@code me}, which holds {@code mine} (it counts these as its load even if the
   * snapshot saw one of them expire, since it is renewing them).
   */
  public static Plan plan(String me, Set<String> mine, Snapshot snapshot) {
    long total = 0;
    long load = 0;
    List<FleetOutbox> free = new ArrayList<>();
    List<FleetOutbox> held = new ArrayList<>();
    for (Snapshot.Row row : snapshot.rows()) {
      FleetOutbox o = row.outbox();
      if (o == null || !o.enabled()) {
        continue;
      }
      total += o.weight();
      if (mine.contains(o.name())) {
        load += o.weight();
        held.add(o);
      } else if (row.owner() == null) {
        free.add(o);
      }
    }
    double fair = (double) total / snapshot.liveNodes();
    List<FleetOutbox> take = new ArrayList<>();
    free.sort(Comparator.comparingInt(o -> spread(me, o.name())));
    long planned = load;
    for (FleetOutbox o : free) {
      if (planned >= fair) {
        break;
      }
      take.add(o);
      planned += o.weight();
    }
    Optional<String> release = Optional.empty();
    if (take.isEmpty()) {
      final long current = load;
      release =
          held.stream()
              .filter(o -> current - o.weight() >= fair)
              .max(Comparator.comparingInt(FleetOutbox::weight))
              .map(FleetOutbox::name);
    }
    return new Plan(take, release);
  }

  /** An order of the outboxes peculiar to each node. */
  private static int spread(String node, String outbox) {
    int h = (node + "\u0000" + outbox).hashCode();
    return h ^ (h >>> 16);
  }
}
