package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.fleet.internal.Balancer;
import dev.txoutbox.fleet.internal.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BalancerTest {

  private static FleetOutbox outbox(String name, int weight) {
    return FleetOutbox.builder(name)
        .jdbcUrl("jdbc:postgresql://db/app")
        .publisher("kafka")
        .weight(weight)
        .build();
  }

  private static Snapshot snapshot(Map<String, String> owners, int nodes, FleetOutbox... outboxes) {
    List<Snapshot.Row> rows = new ArrayList<>();
    for (FleetOutbox o : outboxes) {
      rows.add(new Snapshot.Row(o.name(), o, null, owners.get(o.name()), 1));
    }
    return Snapshot.of(rows, nodes);
  }

  @Test
  void aLoneNodeTakesEverything() {
    Balancer.Plan plan =
        Balancer.plan("a", Set.of(), snapshot(Map.of(), 1, outbox("o1", 1), outbox("o2", 1)));
    assertThat(plan.take()).extracting(FleetOutbox::name).containsExactlyInAnyOrder("o1", "o2");
  }

  @Test
  void aNodeAboveItsShareHandsOneBackWhenANodeJoins() {
    Map<String, String> owners = Map.of("o1", "a", "o2", "a", "o3", "a", "o4", "a");
    Snapshot s =
        snapshot(owners, 2, outbox("o1", 1), outbox("o2", 1), outbox("o3", 1), outbox("o4", 1));
    Balancer.Plan plan = Balancer.plan("a", Set.of("o1", "o2", "o3", "o4"), s);
    assertThat(plan.take()).isEmpty();
    assertThat(plan.release()).isPresent();
  }

  @Test
  void aNodeAtItsShareKeepsWhatItHolds() {
    Map<String, String> owners = Map.of("o1", "a", "o2", "a", "o3", "b");
    Snapshot s = snapshot(owners, 2, outbox("o1", 1), outbox("o2", 1), outbox("o3", 1));
    assertThat(Balancer.plan("a", Set.of("o1", "o2"), s).release()).isEmpty();
    assertThat(Balancer.plan("b", Set.of("o3"), s).take()).isEmpty();
  }

  @Test
  void weightDecidesTheShare() {
    // heavy (3) on a, four light (1) free: fair share 3.5. b, at 0, tries all four; a, at 3, tries
    // one; the database settles who wins each.
    Map<String, String> owners = Map.of("heavy", "a");
    Snapshot s =
        snapshot(
            owners,
            2,
            outbox("heavy", 3),
            outbox("l1", 1),
            outbox("l2", 1),
            outbox("l3", 1),
            outbox("l4", 1));
    assertThat(Balancer.plan("b", Set.of(), s).take()).hasSize(4);
    assertThat(Balancer.plan("a", Set.of("heavy"), s).take()).hasSize(1);
    assertThat(Balancer.plan("a", Set.of("heavy"), s).release()).isEqualTo(Optional.empty());
  }

  @Test
  void disabledOutboxesAreNeitherTakenNorCounted() {
    FleetOutbox off = outbox("off", 5).toBuilder().enabled(false).build();
    Balancer.Plan plan = Balancer.plan("a", Set.of(), snapshot(Map.of(), 1, off, outbox("on", 1)));
    assertThat(plan.take()).extracting(FleetOutbox::name).containsExactly("on");
  }
}
