package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublisherCatalogTest {

  @Test
  void findsTheProvidersOnTheClassPathSortedByName() {
    assertThat(PublisherCatalog.load().names()).containsExactly("fake", "kafka", "rabbit", "sqs");
  }

  @Test
  void aSettingSeveralProvidersDeclareIsOne() {
    PublisherCatalog catalog =
        PublisherCatalog.of(
            List.of(
                new Named("b", PublisherSetting.duration("send-timeout", "1s", "B's.")),
                new Named("a", PublisherSetting.duration("send-timeout", "2s", "A's."))));

    assertThat(catalog.names()).containsExactly("a", "b");
    assertThat(catalog.settings())
        .singleElement()
        .satisfies(s -> assertThat(s.defaultValue()).isEqualTo("2s"));
  }

  @Test
  void twoProvidersOfOneNameAreRefused() {
    assertThatThrownBy(() -> PublisherCatalog.of(List.of(new Named("a"), new Named("a"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("publisher names must be unique but 'a' is provided by both ");
  }

  @Test
  void aSettingOfTwoTypesIsRefused() {
    assertThatThrownBy(
            () ->
                PublisherCatalog.of(
                    List.of(
                        new Named("a", PublisherSetting.text("topic", "T", "A topic.")),
                        new Named("b", PublisherSetting.map("topic", "K=V", "Topics.")))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "setting 'topic' must have one type in every publisher but is TEXT in one and MAP in"
                + " publisher b");
  }

  @Test
  void anUnknownNameListsTheNamesFound() {
    PublisherCatalog catalog = PublisherCatalog.of(List.of(new Named("b"), new Named("a")));

    assertThatThrownBy(() -> catalog.find("c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--publisher must be one of a, b but was 'c'");
    assertThatThrownBy(() -> PublisherCatalog.of(List.of()).find("kafka"))
        .hasMessage("--publisher must be one of (none on the class path) but was 'kafka'");
  }

  /** A provider of {@code name} with {@code settings} that creates nothing. */
  static final class Named implements PublisherProvider {
    private final String name;
    private final List<PublisherSetting> settings;

    Named(String name, PublisherSetting... settings) {
      this.name = name;
      this.settings = List.of(settings);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public List<PublisherSetting> settings() {
      return settings;
    }

    @Override
    public Publisher create(PublisherSettings settings) {
      throw new UnsupportedOperationException("a catalog test creates no publisher");
    }
  }
}
