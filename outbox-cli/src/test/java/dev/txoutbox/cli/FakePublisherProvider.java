package dev.txoutbox.cli;

import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * {@code --publisher fake}: a fourth broker that exists only on the tests' class path, found by
 * {@link java.util.ServiceLoader} like the real ones, so the relay's flags, help and errors are
 * shown to come from the providers. It acknowledges every message; {@code --fake-fail} makes {@link
 * #create} fail the ways a real provider can, quoting what it was given (the {@code io} failure
 * quotes {@code --fake-header note=...} as a password, the way a client library's error might).
 */
public final class FakePublisherProvider implements PublisherProvider {

  @Override
  public String name() {
    return "fake";
  }

  @Override
  public List<PublisherSetting> settings() {
    return List.of(
        PublisherSetting.text("fake-endpoint", "URL", "Where the fake broker listens."),
        PublisherSetting.text("fake-token", "TOKEN", "The fake broker's access token.").masked(),
        PublisherSetting.map("fake-header", "NAME=VALUE", "A header added to every message."),
        PublisherSetting.duration("send-timeout", "5s", "How long the fake broker may take."),
        PublisherSetting.flag("fake-quiet", "Never say anything."),
        PublisherSetting.text("fake-fail", "HOW", "argument, state or io: how create() fails."));
  }

  @Override
  public Publisher create(PublisherSettings settings) {
    String endpoint = settings.text("fake-endpoint").orElse("-");
    String token = settings.text("fake-token").orElse("-");
    settings.duration("send-timeout");
    switch (settings.text("fake-fail").orElse("")) {
      case "argument" ->
          // a builder's error, in the words of the settings as every provider gives them
          throw PublisherSettings.inFlags(
              new IllegalArgumentException("fakeEndpoint " + endpoint + " refused token " + token),
              Map.of("fakeEndpoint", "--fake-endpoint"));
      case "state" -> throw new IllegalStateException("no fake broker at " + endpoint);
      case "io" ->
          throw new UncheckedIOException(
              new IOException(
                  "the fake broker answered 401 to password="
                      + settings.map("fake-header").getOrDefault("note", "-")
                      + " at "
                      + endpoint));
      default -> {}
    }
    return messages -> Collections.nCopies(messages.size(), PublishResult.published());
  }
}
