package dev.txoutbox.cli;

import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The publishers the {@code relay} command can use: every {@link PublisherProvider} on the class
 * path, by name, and the union of their settings, one per name, which become the relay's publisher
 * flags. A setting several providers declare (such as {@code send-timeout}) is one flag. Immutable.
 */
final class PublisherCatalog {

  private final Map<String, PublisherProvider> providers;
  private final Map<String, PublisherSetting> settings;

  private PublisherCatalog(Map<String, PublisherProvider> providers) {
    this.providers = providers;
    Map<String, PublisherSetting> union = new LinkedHashMap<>();
    for (PublisherProvider p : providers.values()) {
      for (PublisherSetting s : p.settings()) {
        PublisherSetting seen = union.putIfAbsent(s.name(), s);
        if (seen != null && seen.type() != s.type()) {
          throw new IllegalStateException(
              "setting '"
                  + s.name()
                  + "' must have one type in every publisher but is "
                  + seen.type()
                  + " in one and "
                  + s.type()
                  + " in publisher "
                  + p.name());
        }
      }
    }
    this.settings = Collections.unmodifiableMap(union);
  }

  /**
   * The providers {@link ServiceLoader} finds on the class path.
   *
   * @throws IllegalStateException if two have the same name, or declare one setting with two types
   */
  static PublisherCatalog load() {
    List<PublisherProvider> found = new ArrayList<>();
    ServiceLoader.load(PublisherProvider.class).forEach(found::add);
    return of(found);
  }

  /**
   * {@code providers}, sorted by name.
   *
   * @throws IllegalStateException if two have the same name, or declare one setting with two types
   */
  static PublisherCatalog of(Collection<PublisherProvider> providers) {
    Map<String, PublisherProvider> byName = new LinkedHashMap<>();
    providers.stream()
        .sorted(Comparator.comparing(PublisherProvider::name))
        .forEach(
            p -> {
              PublisherProvider other = byName.putIfAbsent(p.name(), p);
              if (other != null) {
                throw new IllegalStateException(
                    "publisher names must be unique but '"
                        + p.name()
                        + "' is provided by both "
                        + other.getClass().getName()
                        + " and "
                        + p.getClass().getName());
              }
            });
    return new PublisherCatalog(Collections.unmodifiableMap(byName));
  }

  /** The providers, sorted by name. */
  Collection<PublisherProvider> providers() {
    return providers.values();
  }

  /** Every setting of every provider, one per name, in the order the providers declare them. */
  Collection<PublisherSetting> settings() {
    return settings.values();
  }

  /**
   * The provider {@code name} names, in any case.
   *
   * @throws IllegalArgumentException naming {@code --publisher} and the publishers found
   */
  PublisherProvider find(String name) {
    PublisherProvider p = name == null ? null : providers.get(name.trim().toLowerCase(Locale.ROOT));
    if (p == null) {
      throw new IllegalArgumentException(
          "--publisher must be one of "
              + (providers.isEmpty() ? "(none on the class path)" : String.join(", ", names()))
              + " but was '"
              + name
              + "'");
    }
    return p;
  }

  /** The providers' names, sorted. */
  List<String> names() {
    return List.copyOf(providers.keySet());
  }
}
