package dev.txoutbox.cli;

import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.ParseResult;

/**
 * The {@code relay} command's publisher flags, made from the settings of the providers in a {@link
 * PublisherCatalog}: {@code --NAME} for each setting, one flag however many providers declare it,
 * and a section of {@code --help} per publisher listing its flags with their defaults. The values
 * given are read back as settings, over those of a {@code --publisher-config} file. Stateless.
 */
final class PublisherOptions {

  /** The key of the publishers' section in the relay's usage help. */
  static final String HELP_SECTION = "publishers";

  private PublisherOptions() {}

  /**
   * Adds a flag per setting of {@code catalog} to {@code relay}, and its publishers' section to
   * {@code relay}'s usage help, after the option list.
   *
   * @throws IllegalStateException if a setting is named like one of the relay's own flags
   */
  static void install(CommandLine relay, PublisherCatalog catalog) {
    CommandSpec spec = relay.getCommandSpec();
    for (PublisherSetting s : catalog.settings()) {
      String flag = flag(s);
      if (spec.findOption(flag) != null) {
        throw new IllegalStateException(
            "a publisher setting must not be named like a relay flag but '"
                + s.name()
                + "' is "
                + flag);
      }
      // Shown per publisher in the publishers' section instead of the relay's option list.
      spec.addOption(option(s, s.description()).hidden(true).build());
    }
    Map<String, IHelpSectionRenderer> sections = new LinkedHashMap<>(relay.getHelpSectionMap());
    sections.put(HELP_SECTION, help -> help(help, catalog));
    List<String> keys = new ArrayList<>(relay.getHelpSectionKeys());
    keys.add(keys.indexOf(UsageMessageSpec.SECTION_KEY_OPTION_LIST) + 1, HELP_SECTION);
    relay.setHelpSectionMap(sections);
    relay.setHelpSectionKeys(keys);
  }

  /**
   * The publisher settings given: those of {@code file} (when given), overridden by the flags
   * matched in {@code parsed}. A map flag's entries become {@code NAME.KEY} settings.
   *
   * @throws IllegalArgumentException if {@code file} cannot be read
   */
  static Map<String, String> given(ParseResult parsed, Path file, PublisherCatalog catalog) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (file != null) {
      settings.putAll(PropertiesFile.read("--publisher-config", file));
    }
    for (PublisherSetting s : catalog.settings()) {
      OptionSpec matched = parsed.matchedOption(flag(s));
      if (matched == null) {
        continue;
      }
      switch (s.type()) {
        case TEXT, DURATION -> settings.put(s.name(), matched.getValue());
        case FLAG -> settings.put(s.name(), String.valueOf((boolean) matched.getValue()));
        case MAP -> {
          Map<String, String> entries = matched.getValue();
          entries.forEach((k, v) -> settings.put(s.name() + "." + k, v));
        }
      }
    }
    return settings;
  }

  /** A section per publisher: its flags as picocli lays out options, each with its default. */
  private static String help(Help help, PublisherCatalog catalog) {
    StringBuilder out = new StringBuilder();
    for (PublisherProvider p : catalog.providers()) {
      // The options shown belong to a command of their own: they only describe, never parse.
      CommandSpec shown = CommandSpec.create();
      Help.Layout layout = help.createDefaultLayout();
      for (PublisherSetting s : p.settings()) {
        OptionSpec option = option(s, describe(s)).build();
        shown.addOption(option);
        layout.addOption(option, help.parameterLabelRenderer());
      }
      out.append(help.createHeading("%n--publisher " + p.name() + ":%n")).append(layout);
    }
    return out.toString();
  }

  private static String describe(PublisherSetting s) {
    boolean shownDefault = s.defaultValue() != null && s.type() != PublisherSetting.Type.FLAG;
    return s.description() + (shownDefault ? " Default: " + s.defaultValue() + "." : "");
  }

  private static OptionSpec.Builder option(PublisherSetting s, String description) {
    OptionSpec.Builder b = OptionSpec.builder(flag(s)).description(description);
    return switch (s.type()) {
      case TEXT, DURATION -> b.type(String.class).paramLabel(s.label());
      case FLAG -> b.type(boolean.class).arity("0");
      case MAP ->
          b.type(Map.class).auxiliaryTypes(String.class, String.class).paramLabel(s.label());
    };
  }

  private static String flag(PublisherSetting s) {
    return "--" + s.name();
  }
}
