package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.OutboxTestDatabase;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The pages in a real headless Chromium over a seeded outbox: the overview, the events filtered
 * from the form, a detail whose hostile payload, headers and error show as text, and a dead-letter
 * group requeued after a confirmation that names the count. Each page is saved as a screenshot.
 */
class ConsoleBrowserTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @TempDir static Path dir;

  static final String HOSTILE =
      "<script>window.pwned = 1</script>\"><img src=x onerror=\"window.pwned=2\">";

  private static RunningConsole console;
  private static Browser browser;
  private static Seed seed;
  private UUID hostile;

  @BeforeAll
  static void start() {
    console = RunningConsole.withCredential(db, dir);
    seed = new Seed(db);
    browser = new Browser();
  }

  @AfterAll
  static void stop() {
    browser.close();
    console.close();
  }

  @BeforeEach
  void seedAnOutbox() {
    db.truncateOutbox();
    seed.noRelays();
    // A relay beating hourly: running for the whole test, however slow the machine.
    seed.relay("billing", "polling", 3_600_000, 2, 1L, false, "RelayConfig{name=billing}");
    for (int i = 1; i <= 4; i++) {
      seed.processed("OrderPlaced", "order-" + i);
    }
    seed.pending("OrderPlaced", "order-5", "{\"orderId\": 5, \"total\": 99.5}");
    seed.pending("OrderShipped", "order-4", "{\"orderId\": 4}");
    seed.delayed("InvoiceDue", "order-3");
    seed.dead("OrderPlaced", "order-6", "Timeout after 30000 ms waiting for broker ack");
    seed.dead("OrderPlaced", "order-7", "Timeout after 30500 ms waiting for broker ack");
    seed.dead("OrderPlaced", "order-8", "Timeout after 31000 ms waiting for broker ack");
    hostile =
        seed.insert(
            "OrderPlaced",
            "order-9",
            "{\"note\": " + quoted(HOSTILE) + ", \"amount\": 12}",
            "{\"traceparent\": \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\", \"x-note\": "
                + quoted(HOSTILE)
                + "}",
            5,
            null,
            null,
            OffsetDateTime.now(ZoneOffset.UTC),
            "rejected: " + HOSTILE);
  }

  @Test
  void theOverviewPutsTheProblemFirstAndShowsTheCounts() {
    open("o/main/");
    WebElement problems =
        browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("problems")));

    assertThat(problems.getText()).startsWith("4 dead letters: events that failed for good");
    List<String> cards = texts(By.cssSelector(".card"));
    assertThat(cards).contains("PENDING\n3", "DUE NOW\n2", "DELAYED\n1", "DEAD LETTERS\n4");
    browser.screenshot("overview");
  }

  @Test
  void eventsAreFilteredFromTheFormIntoAShareableUrl() {
    open("o/main/events");
    browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("events")));
    new Select(browser.driver.findElement(By.name("state"))).selectByValue("pending");
    browser.driver.findElement(By.name("eventType")).sendKeys("OrderPlaced");
    browser.driver.findElement(By.cssSelector("#filter button[type=submit]")).click();

    browser.wait.until(ExpectedConditions.urlContains("state=pending"));
    assertThat(browser.driver.getCurrentUrl()).contains("eventType=OrderPlaced");
    browser.wait.until(
        ExpectedConditions.numberOfElementsToBe(By.cssSelector("#events tbody tr"), 1));
    assertThat(browser.driver.findElement(By.cssSelector("#events tbody tr")).getText())
        .contains("due", "OrderPlaced", "order / order-5");
    open("o/main/events");
    browser.wait.until(
        ExpectedConditions.numberOfElementsToBe(By.cssSelector("#events tbody tr"), 11));
    browser.screenshot("events");
  }

  @Test
  void aDetailShowsAHostilePayloadHeadersAndErrorAsText() {
    open("o/main/events");
    browser
        .wait
        .until(ExpectedConditions.elementToBeClickable(By.cssSelector("#events tbody tr a")))
        .click();
    browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload")));
    open("o/main/events/" + hostile);
    WebElement payload =
        browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload")));

    assertThat(payload.getText()).contains("\"note\": " + quoted(HOSTILE).replace("\\\"", "\\\""));
    assertThat(payload.getText()).contains("<script>window.pwned = 1</script>");
    assertThat(browser.driver.findElement(By.id("headers")).getText()).contains(HOSTILE);
    assertThat(browser.driver.findElement(By.id("last-error")).getText())
        .isEqualTo("rejected: " + HOSTILE);
    assertThat(browser.driver.executeScript("return window.pwned === undefined")).isEqualTo(true);
    assertThat(browser.driver.findElements(By.cssSelector("main script, main img"))).isEmpty();
    assertThatThrownBy(() -> browser.driver.switchTo().alert())
        .isInstanceOf(NoAlertPresentException.class);
    assertThat(main())
        .contains("Attempts\n5")
        .doesNotContain("[object")
        .doesNotContainPattern("(?m)^null$");
    browser.screenshot("detail");
  }

  @Test
  void aDeadLetterGroupIsRequeuedAfterAConfirmationThatNamesTheCount() {
    open("o/main/dead-letters");
    browser.driver.executeScript("sessionStorage.clear()");
    browser.driver.navigate().refresh();
    WebElement locked =
        browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("groups")));
    assertThat(
            browser.driver.findElement(By.cssSelector("button[data-action=requeue]")).isEnabled())
        .isFalse();
    browser.driver.findElement(By.id("secret")).sendKeys(RunningConsole.SECRET);
    browser.driver.findElement(By.id("unlock")).click();
    browser.wait.until(ExpectedConditions.stalenessOf(locked));
    WebElement group =
        browser.wait.until(
            ExpectedConditions.visibilityOfElementLocated(
                By.xpath(
                    "//tr[td[1][text()='OrderPlaced'] and td[4][starts-with(text(), 'Timeout"
                        + " after')]]")));
    assertThat(browser.driver.findElement(By.id("total")).getText()).isEqualTo("4");
    group.findElement(By.cssSelector("button[data-action=requeue]")).click();

    WebElement confirmation =
        browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirmation")));
    assertThat(confirmation.getText())
        .startsWith(
            "Requeue 3 dead letters: dead letters of type 'OrderPlaced' whose error reads like"
                + " 'Timeout after ? ms waiting for broker ack'?");
    assertThat(main()).doesNotContain("[object").doesNotContainPattern("(?m)^null$");
    browser.screenshot("dead-letters-confirm");
    assertThat(seed.count("dead_lettered_at is not null")).isEqualTo(4);
    confirmation.findElement(By.id("confirm")).click();

    assertThat(
            browser
                .wait
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("done")))
                .getText())
        .isEqualTo("Requeued 3 dead letters.");
    browser.wait.until(ExpectedConditions.textToBe(By.id("total"), "1"));
    assertThat(seed.count("dead_lettered_at is not null")).isEqualTo(1);
    browser.screenshot("dead-letters");
  }

  @Test
  void theRelaysPageShowsEachRelaysStateAndLastCycle() {
    seed.relay("shipping", "wal", 10_000, 900, 905L, false, "");
    seed.relay("reports", "polling", 10_000, 7_200, null, true, "");
    open("o/main/relays");
    WebElement heartbeats =
        browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("heartbeats")));

    assertThat(browser.driver.findElement(By.id("running")).getText()).isEqualTo("1");
    List<String> rows =
        heartbeats.findElements(By.cssSelector("tbody tr")).stream()
            .map(WebElement::getText)
            .toList();
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).startsWith("billing polling running orders-7f9c / 4242");
    assertThat(rows.get(1)).startsWith("shipping wal stale").contains("15m ago");
    assertThat(rows.get(2)).startsWith("reports polling stopped").contains("never");
    assertThat(browser.driver.findElement(By.id("slot")).getText())
        .contains("No replication slot named txoutbox_");
    assertThat(main()).doesNotContain("[object").doesNotContainPattern("(?m)^null$");
    browser.screenshot("relays");
  }

  @Test
  void theOverviewChartsTheSamplesTaken() {
    for (int i = 0; i < 3; i++) {
      console.console.sampler().sampleAll();
    }
    open("o/main/");
    WebElement line =
        browser.wait.until(
            ExpectedConditions.presenceOfElementLocated(By.cssSelector("#chart-pending polyline")));

    assertThat(line.getAttribute("points").trim().split(" ")).hasSizeGreaterThanOrEqualTo(3);
    assertThat(browser.driver.findElement(By.cssSelector("#chart-published polyline"))).isNotNull();
    assertThat(main()).contains("Sampled by this console every 10 s");
    browser.screenshot("overview-charts");
  }

  @Test
  void theOverviewSaysNoRelayIsRunningWhenNoneBeats() {
    seed.noRelays();
    open("o/main/");
    WebElement problems =
        browser.wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("problems")));

    assertThat(problems.findElement(By.cssSelector(".problem.critical")).getText())
        .startsWith("No relay is running: 2 events are due");
  }

  private static void open(String path) {
    browser.driver.get(console.server.uri().resolve(path).toString());
  }

  private static String main() {
    return browser.driver.findElement(By.tagName("main")).getText();
  }

  private static List<String> texts(By by) {
    return browser.driver.findElements(by).stream().map(WebElement::getText).toList();
  }

  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
