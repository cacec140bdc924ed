package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.fleet.Assignment;
import dev.txoutbox.fleet.FleetNode;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.FleetRegistry;
import dev.txoutbox.fleet.FleetSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.OutboxTestDatabase;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The fleet page over a real fleet: a node in this JVM serves one outbox of the registry and a
 * second entry is disabled. The API says who serves what, under which term, with the last renewal;
 * the page shows it in a headless Chromium; a console without a fleet has no such page.
 */
class ConsoleFleetTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static String controlSchema;
  private static FleetNode node;
  private static RunningConsole console;
  private static Browser browser;

  @BeforeAll
  static void start() {
    controlSchema = "fleet_console_" + UUID.randomUUID().toString().substring(0, 8);
    FleetSchema.migrate(db.dataSource(), controlSchema);
    FleetRegistry registry = FleetRegistry.create(db.dataSource(), controlSchema);
    registry.add(entry("billing").build());
    registry.add(entry("archive").enabled(false).build());
    node =
        FleetNode.builder()
            .controlDataSource(db.dataSource())
            .controlSchema(controlSchema)
            .nodeId("node-a")
            .leaseTtl(Duration.ofSeconds(30))
            .scanInterval(Duration.ofMillis(300))
            .poolSize(1)
            .publishers((outbox, settings, client) -> new RecordingPublisher())
            .relayConfig(RelayConfig.builder().shutdownTimeout(Duration.ofSeconds(2)).build())
            .build();
    node.start();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                node.assignments().stream()
                    .anyMatch(
                        a ->
                            a.outbox().equals("billing") && a.state() == Assignment.State.RUNNING));
    console =
        RunningConsole.start(RunningConsole.builder(db).fleet(db.dataSource(), controlSchema));
    browser = new Browser();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (console != null) {
      console.close();
    }
    if (node != null) {
      node.close();
    }
  }

  private static FleetOutbox.Builder entry(String name) {
    return FleetOutbox.builder(name)
        .jdbcUrl(db.jdbcUrl())
        .user("postgres")
        .schema(db.schema())
        .publisher("recording");
  }

  private static JsonNode outbox(JsonNode fleet, String name) {
    for (JsonNode o : fleet.get("outboxes")) {
      if (o.get("name").asText().equals(name)) {
        return o;
      }
    }
    throw new AssertionError("no outbox " + name + " in " + fleet);
  }

  @Test
  void theApiSaysWhichNodeServesWhichOutbox() {
    JsonNode fleet = console.client.json("api/fleet");
    assertThat(fleet.get("controlSchema").asText()).isEqualTo(controlSchema);
    assertThat(fleet.get("aliveNodes").asInt()).isEqualTo(1);
    assertThat(fleet.get("served").asInt()).isEqualTo(1);
    assertThat(fleet.get("unserved").asInt()).isZero();
    JsonNode n = fleet.get("nodes").get(0);
    assertThat(n.get("nodeId").asText()).isEqualTo("node-a");
    assertThat(n.get("alive").asBoolean()).isTrue();
    assertThat(n.get("outboxes").asInt()).isEqualTo(1);
    JsonNode billing = outbox(fleet, "billing");
    assertThat(billing.get("state").asText()).isEqualTo("served");
    assertThat(billing.get("owner").asText()).isEqualTo("node-a");
    assertThat(billing.get("term").asLong()).isEqualTo(1);
    assertThat(billing.get("lastRenewal").isNull()).isFalse();
    assertThat(billing.get("lastRenewalAgeSeconds").asDouble()).isBetween(0.0, 30.0);
    assertThat(billing.get("expiresInSeconds").asDouble()).isPositive();
    assertThat(billing.get("kind").asText()).isEqualTo("polling");
    assertThat(billing.get("tables").asText()).contains(db.schema());
    JsonNode archive = outbox(fleet, "archive");
    assertThat(archive.get("state").asText()).isEqualTo("disabled");
    assertThat(archive.get("owner").isNull()).isTrue();
    assertThat(console.client.json("api/session").get("fleet").asBoolean()).isTrue();
  }

  @Test
  void thePageShowsTheNodesAndWhoServesEachOutbox() {
    browser.driver.get(console.server.uri().resolve("fleet").toString());
    browser.wait.until(
        ExpectedConditions.presenceOfElementLocated(
            By.cssSelector("#fleet-outboxes tr[data-outbox='billing']")));
    WebElement billing =
        browser.driver.findElement(By.cssSelector("#fleet-outboxes tr[data-outbox='billing']"));
    assertThat(billing.findElement(By.cssSelector(".owner")).getText()).isEqualTo("node-a");
    assertThat(billing.findElement(By.cssSelector(".badge")).getText()).isEqualTo("served");
    assertThat(billing.findElement(By.cssSelector(".term")).getText()).isEqualTo("1");
    assertThat(billing.findElement(By.cssSelector(".renewal")).getText()).endsWith("ago");
    WebElement archive =
        browser.driver.findElement(By.cssSelector("#fleet-outboxes tr[data-outbox='archive']"));
    assertThat(archive.findElement(By.cssSelector(".badge")).getText()).isEqualTo("disabled");
    WebElement nodeRow =
        browser.driver.findElement(By.cssSelector("#fleet-nodes tr[data-node='node-a']"));
    assertThat(nodeRow.findElement(By.cssSelector(".badge")).getText()).isEqualTo("alive");
    assertThat(nodeRow.findElement(By.cssSelector(".held")).getText()).isEqualTo("1");
    assertThat(browser.driver.findElement(By.id("fleet-summary")).getText())
        .startsWith("1 nodes alive; 1 outboxes served, 0 unserved");
    assertThat(browser.driver.findElement(By.id("fleet-link")).getAttribute("class"))
        .isEqualTo("current");
    browser.screenshot("fleet");
    // the overview of an outbox links to the fleet page
    browser.driver.get(console.server.uri().resolve("o/main/").toString());
    browser.wait.until(ExpectedConditions.elementToBeClickable(By.id("fleet-link"))).click();
    browser.wait.until(ExpectedConditions.presenceOfElementLocated(By.id("fleet-summary")));
  }

  @Test
  void aConsoleWithoutAFleetHasNoFleetPage() {
    List<Integer> statuses = new ArrayList<>();
    try (RunningConsole plain = RunningConsole.readOnly(db)) {
      statuses.add(plain.client.get("fleet").statusCode());
      statuses.add(plain.client.get("api/fleet").statusCode());
      assertThat(plain.client.json("api/session").get("fleet").asBoolean()).isFalse();
    }
    assertThat(statuses).containsExactly(404, 404);
  }

  @Test
  void aFleetNeedsAValidControlSchemaName() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                OutboxConsole.builder()
                    .outbox("main", db.dataSource(), OutboxTables.in(db.schema()))
                    .fleet(db.dataSource(), "Not A Schema"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema");
  }
}
