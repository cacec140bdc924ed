package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.fleet.FleetException;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.SecretRef;
import dev.txoutbox.spi.SecretMasking;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox fleet list}: the registry's entries. A password is shown as the reference the
 * registry stores ({@code env:NAME}, {@code file:/path}), never resolved; settings and URLs pass
 * the CLI's masking besides.
 */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists the outboxes of the fleet's registry (secrets as their references).")
final class FleetListCommand extends FleetCommand.Control {

  @Option(names = "--json", description = "One JSON array on stdout.")
  boolean json;

  FleetListCommand(TxoutboxCommand root) {
    super(root);
  }

  @Override
  public Integer call() {
    DatabaseTarget target = controlTarget();
    List<FleetOutbox> entries;
    try {
      entries = registry(connect(target)).list();
    } catch (FleetException e) {
      throw failure(e);
    }
    out().println(json ? json(entries) : table(entries));
    return ExitCodes.OK;
  }

  static String table(List<FleetOutbox> entries) {
    if (entries.isEmpty()) {
      return "no outboxes in the registry";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "NAME", "KIND", "ENABLED", "WEIGHT", "DATABASE", "USER", "PASSWORD", "OUTBOX", "PUBLISHER"
        });
    for (FleetOutbox o : entries) {
      rows.add(
          new String[] {
            o.name(),
            o.kind().dbName() + (o.slotName() == null ? "" : " (slot " + o.slotName() + ")"),
            o.enabled() ? "yes" : "no",
            Integer.toString(o.weight()),
            OutputMasking.line(o.jdbcUrl()),
            o.user() == null ? "-" : OutputMasking.line(o.user()),
            o.password() == null ? "-" : OutputMasking.line(o.password().toString()),
            o.tables().schema()
                + (o.tables().tablePrefix().isEmpty() ? "" : " " + o.tables().tablePrefix()),
            OutputMasking.line(publisher(o))
          });
    }
    return DeadLetterFormat.columns(rows);
  }

  private static String publisher(FleetOutbox o) {
    return o.publisher()
        + shown(o).entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", ", " {", "}"));
  }

  /**
   * The publisher settings as shown: a reference as stored (it is no secret), any other value
   * masked as a setting of its name is.
   */
  private static Map<String, String> shown(FleetOutbox o) {
    Map<String, String> shown = new TreeMap<>();
    o.publisherSettings()
        .forEach(
            (k, v) ->
                shown.put(
                    k,
                    OutputMasking.mask(
                        SecretRef.isReference(v) ? v : SecretMasking.maskSetting(k, v))));
    return shown;
  }

  static String json(List<FleetOutbox> entries) {
    ArrayNode array = Json.array();
    for (FleetOutbox o : entries) {
      ObjectNode e =
          array
              .addObject()
              .put("name", o.name())
              .put("kind", o.kind().dbName())
              .put("slot", o.slotName())
              .put("enabled", o.enabled())
              .put("weight", o.weight())
              .put("jdbc_url", OutputMasking.mask(o.jdbcUrl()))
              .put("user", o.user())
              .put("password", o.password() == null ? null : o.password().toString())
              .put("schema", o.tables().schema())
              .put("table_prefix", o.tables().tablePrefix())
              .put("publisher", o.publisher());
      ObjectNode settings = e.putObject("publisher_settings");
      shown(o).forEach(settings::put);
      e.put("version", o.version());
    }
    return Json.write(array);
  }
}
