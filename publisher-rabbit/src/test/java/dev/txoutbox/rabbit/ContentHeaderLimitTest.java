package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.rabbit.RabbitMessageMapper.Prepared;
import dev.txoutbox.spi.OutboxMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A differential test of {@link ContentHeaderLimit} against the real thing: random header tables
 * around the connection's {@code frame_max}, and for each our verdict (fits or not) next to what
 * the client and RabbitMQ do with the message sent as is on a channel of its own.
 */
class ContentHeaderLimitTest {

  /** Set {@code -Dtxoutbox.seed=…} to replay a run; each failure names its seed and trial. */
  private static final long SEED = Long.getLong("txoutbox.seed", 20261206L);

  private static final int TRIALS = 120;

  /** Characters of 1, 2 and 3 UTF-8 bytes, and a surrogate pair of 4. */
  private static final String[] PIECES = {"a", "Z", "7", "-", "\u00e9", "\u00df", "\u2713", "😀"};

  @Test
  void verdictAgreesWithTheClientAndTheBrokerAroundTheFrameMax() throws Exception {
    Random random = new Random(SEED);
    int fits = 0;
    int tooLarge = 0;
    try (TestTopology topology = TestTopology.create("frame", "order.#")) {
      RabbitMessageMapper mapper =
          new RabbitMessageMapper(
              RabbitRouter.byEventType(topology.exchange()),
              RabbitPublisher.DEFAULT_MAX_MESSAGE_BYTES);
      Connection connection = connect();
      int frameMax = connection.getFrameMax();
      for (int trial = 0; trial < TRIALS; trial++) {
        int target = frameMax + offset(random, frameMax);
        Prepared message = mapper.prepare(nearSize(random, mapper, target));
        int size = ContentHeaderLimit.frameSize(message.properties(), message.body().length);
        boolean ours =
            ContentHeaderLimit.check(message.properties(), message.body().length, frameMax) == null;
        if (!connection.isOpen()) {
          connection = connect();
        }
        boolean actual = sendAndConfirm(connection, message);
        String trialName =
            String.format(
                "seed %d, trial %d: content header of %d bytes, frame_max %d",
                SEED, trial, size, frameMax);
        assertThat(ours).as(trialName).isEqualTo(actual);
        assertThat(ContentHeaderLimit.upperBound(message.properties().getHeaders()))
            .as("%s: the bound without encoding", trialName)
            .isGreaterThanOrEqualTo(size);
        if (actual) {
          fits++;
        } else {
          tooLarge++;
        }
      }
      connection.abort();
      assertThat(topology.take(fits + 1, Duration.ofSeconds(30)))
          .as("every message that fits reached the queue, and no other")
          .hasSize(fits);
    }
    assertThat(fits).as("messages that fit").isGreaterThan(TRIALS / 4);
    assertThat(tooLarge).as("messages too large").isGreaterThan(TRIALS / 4);
  }

  private static Connection connect() throws IOException, TimeoutException {
    return RabbitTestBroker.factory().newConnection("txoutbox-test-frame-max");
  }

  /** Mostly a few bytes around the limit, its edge included; now and then far below it. */
  private static int offset(Random random, int frameMax) {
    return switch (random.nextInt(4)) {
      case 0 -> random.nextInt(3) - 1;
      case 1 -> random.nextInt(81) - 40;
      case 2 -> random.nextInt(4001) - 2000;
      default -> -random.nextInt(frameMax / 2);
    };
  }

  /**
   * An event whose stored headers make its content header frame {@code target} bytes: random names
   * and values of mixed UTF-8 widths, then one ASCII header padded to the exact size.
   */
  private static OutboxMessage nearSize(Random random, RabbitMessageMapper mapper, int target) {
    OutboxMessage event = Messages.event("order", "o-1", "order.created", "{}");
    Map<String, String> headers = new LinkedHashMap<>();
    int count = 1 + random.nextInt(63);
    int budget = Math.max(0, target * 9 / 10 / count - 60);
    for (int i = 0; i < count; i++) {
      headers.put("h" + i + "-" + text(random, random.nextInt(20)), text(random, budget / 3));
    }
    int size = frameSize(mapper, event.toBuilder().headers(headers).build());
    String pad = "pad";
    int entry = 1 + pad.length() + 1 + 4;
    headers.put(pad, "p".repeat(Math.max(0, target - size - entry)));
    return event.toBuilder().headers(headers).build();
  }

  private static int frameSize(RabbitMessageMapper mapper, OutboxMessage message) {
    Prepared prepared = mapper.prepare(message);
    return ContentHeaderLimit.frameSize(prepared.properties(), prepared.body().length);
  }

  private static String text(Random random, int pieces) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < pieces; i++) {
      text.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return text.toString();
  }

  /**
   * Whether the client sends {@code message} and the broker confirms it, on a fresh confirm-mode
   * channel, as sent without any check of ours.
   */
  private static boolean sendAndConfirm(Connection connection, Prepared message)
      throws IOException, InterruptedException {
    Channel channel = connection.createChannel();
    try {
      channel.confirmSelect();
      channel.basicPublish(
          message.exchange(), message.routingKey(), true, message.properties(), message.body());
      channel.waitForConfirmsOrDie(10_000);
      return true;
    } catch (IllegalArgumentException | IOException | ShutdownSignalException e) {
      return false; // refused by the client, or the broker closed the channel or connection
    } catch (TimeoutException e) {
      throw new AssertionError("no confirm within 10 s", e);
    } finally {
      if (channel.isOpen()) {
        channel.abort();
      }
    }
  }
}
