package dev.txoutbox.wal;

import dev.txoutbox.RelayOption;
import java.util.function.Function;

/**
 * The WAL relay cannot start with its settings (a slot of its name is another database's): the
 * message says which {@link WalOptions} to change, named by {@link #getMessage()} as the builder
 * names them ({@code slotName}) and by {@link #message(RelayOption.Spelling)} in the words of
 * whoever set them ({@code --slot} on the command line). Immutable.
 */
public final class WalSettingsException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  /** The message, naming the options in the words given. */
  private final transient Function<RelayOption.Spelling, String> message;

  WalSettingsException(Function<RelayOption.Spelling, String> message) {
    super(message.apply(RelayOption.Spelling.API));
    this.message = message;
  }

  /** The message with the options named in {@code words}. */
  public String message(RelayOption.Spelling words) {
    return message.apply(words);
  }
}
