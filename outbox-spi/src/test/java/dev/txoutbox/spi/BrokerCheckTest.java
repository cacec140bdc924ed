package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerCheckTest {

  private final Publisher plain =
      new Publisher() {
        @Override
        public List<PublishResult> publish(List<OutboxMessage> messages) {
          return List.of();
        }

        @Override
        public String name() {
          return "plain";
        }
      };

  @Test
  void aPublisherWithoutACheckSaysItCheckedNothing() throws Exception {
    BrokerCheck check = plain.checkBroker(Duration.ofSeconds(5));

    assertThat(check.status()).isEqualTo(BrokerCheck.Status.NOT_CHECKED);
    assertThat(check.failed()).isFalse();
    assertThat(check.detail()).isEqualTo("plain: no broker check");
  }

  @Test
  void aTimeoutThatIsNotPositiveIsRefusedNamingIt() {
    assertThatThrownBy(() -> plain.checkBroker(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be positive but was 0ms");
    assertThatThrownBy(() -> plain.checkBroker(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("timeout");
  }

  @Test
  void onlyAnUnreachableBrokerIsAFailedCheck() {
    assertThat(BrokerCheck.reachable("ok").failed()).isFalse();
    assertThat(BrokerCheck.unreachable("refused", null).failed()).isTrue();
  }
}
