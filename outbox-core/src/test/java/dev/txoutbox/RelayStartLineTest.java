package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The relay's one lifecycle line at start carries everything an operator needs to know about it:
 * its name, its schema, its configuration, the publisher's {@code describe()} with any secret
 * masked, its metrics and notifications.
 */
class RelayStartLineTest {

  private static TestDatabase db;

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger txoutbox = (Logger) LoggerFactory.getLogger("dev.txoutbox");
  private OutboxRelay relay;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("start_line");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void capture() {
    logs.start();
    txoutbox.addAppender(logs);
  }

  @AfterEach
  void close() {
    if (relay != null) {
      relay.close(Duration.ofSeconds(5));
    }
    txoutbox.detachAppender(logs);
  }

  /** A publisher whose description holds secrets and a line break, as a careless plugin's might. */
  private static final class CarelessPublisher implements Publisher {
    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      return messages.stream().map(m -> PublishResult.published()).toList();
    }

    @Override
    public String name() {
      return "careless";
    }

    @Override
    public String describe() {
      return "careless{uri=amqp://app:s3cr3t-pw@broker:5672/vh, password=hunter2,"
          + " sasl.jaas.config=PlainLoginModule required password=\"jaas-pw\";\nforged line}";
    }
  }

  private List<ILoggingEvent> infoLines() {
    return logs.list.stream().filter(e -> e.getLevel() == Level.INFO).toList();
  }

  @Test
  void theStartLineCarriesTheConfigurationAndTheMaskedPublisherDescription() {
    RelayConfig config = RelayConfig.builder().name("orders").batchSize(250).workers(2).build();
    relay =
        TestSupport.relayBuilder(db, new CarelessPublisher())
            .config(config)
            .metrics(
                OutboxMetrics.builder(new SimpleMeterRegistry())
                    .refreshInterval(Duration.ofMinutes(1))
                    .build())
            .build();

    relay.start();

    assertThat(infoLines()).as("one lifecycle line at start").hasSize(1);
    String line = infoLines().get(0).getFormattedMessage();
    assertThat(line)
        .startsWith("outbox relay orders starting on schema " + db.schema() + ": " + config)
        .contains("batchSize=250", "workers=2")
        .contains("publisher careless{uri=amqp://app:****@broker:5672/vh, password=****")
        .contains("metrics SimpleMeterRegistry, refresh 1m, maxEventTypes 200")
        .endsWith("notifications off")
        .doesNotContain("s3cr3t-pw", "hunter2", "jaas-pw", "\n")
        .contains("\\nforged line");
  }

  @Test
  void aRelayWithoutMetricsOrNotificationsSaysSo() {
    relay =
        TestSupport.relayBuilder(db, new RecordingPublisher())
            .config(RelayConfig.builder().name("plain").build())
            .listenForNotifications(true)
            .build();

    relay.start();

    assertThat(infoLines())
        .filteredOn(e -> e.getFormattedMessage().startsWith("outbox relay plain starting"))
        .singleElement()
        .extracting(ILoggingEvent::getFormattedMessage)
        .asString()
        .contains(
            "publisher recording; metrics off; notifications on channel txoutbox_" + db.schema());
  }
}
