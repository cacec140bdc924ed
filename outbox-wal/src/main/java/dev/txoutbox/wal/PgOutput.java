package dev.txoutbox.wal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decodes the messages of PostgreSQL's built-in {@code pgoutput} plugin, protocol version 1, with
 * tuples in text format: Begin, Commit and Relation in full, Insert's new tuple, and the kind alone
 * of every other message (Update, Delete, Truncate, Origin, Type, Message), which the relay skips.
 * See the PostgreSQL manual, "Logical Replication Message Formats". Stateless and thread-safe.
 */
final class PgOutput {

  private PgOutput() {}

  /** One decoded message. */
  sealed interface Message permits Begin, Commit, Relation, Insert, Skipped {}

  /**
   * A transaction starts.
   *
   * @param finalLsn the LSN of the transaction's commit record
   * @param commitMicros commit time, microseconds since 2000-01-01 UTC
   * @param xid the transaction id
   */
  record Begin(long finalLsn, long commitMicros, int xid) implements Message {}

  /**
   * A transaction ends.
   *
   * @param commitLsn the LSN of the commit record
   * @param endLsn the LSN just past it: the position to confirm once the transaction is handled
   * @param commitMicros commit time, microseconds since 2000-01-01 UTC
   */
  record Commit(long commitLsn, long endLsn, long commitMicros) implements Message {}

  /** The shape of a table, sent before the first change of it in a session (and after DDL). */
  record Relation(int oid, String namespace, String name, List<String> columns) implements Message {
    Relation {
      columns = List.copyOf(columns);
    }
  }

  /**
   * A row was inserted.
   *
   * @param relationOid the table's oid, announced by an earlier {@link Relation}
   * @param values each column's text value, in the relation's column order
   */
  record Insert(int relationOid, List<Value> values) implements Message {}

  /** A message the relay does not read, by its one-letter kind ({@code U}, {@code D}, ...). */
  record Skipped(char kind) implements Message {}

  /**
   * One column of a tuple.
   *
   * @param kind {@code 'n'} null, {@code 'u'} unchanged TOASTed value (not sent), {@code 't'} text
   * @param text the value for {@code 't'}, else null
   */
  record Value(char kind, @Nullable String text) {
    static final Value NULL = new Value('n', null);
    static final Value UNCHANGED = new Value('u', null);
  }

  /**
   * Decodes one message, from the buffer's position to its limit.
   *
   * @throws IllegalArgumentException if the message is malformed, of an unknown kind, or has a
   *     binary tuple value (protocol version 2 and later)
   */
  static Message decode(ByteBuffer buffer) {
    ByteBuffer b = buffer.slice();
    try {
      char kind = (char) b.get();
      return switch (kind) {
        case 'B' -> new Begin(b.getLong(), b.getLong(), b.getInt());
        case 'C' -> {
          b.get(); // flags, unused
          yield new Commit(b.getLong(), b.getLong(), b.getLong());
        }
        case 'R' -> relation(b);
        case 'I' -> insert(b);
        case 'U', 'D', 'T', 'O', 'Y', 'M' -> new Skipped(kind);
        default ->
            throw new IllegalArgumentException(
                "unknown pgoutput message kind '"
                    + kind
                    + "' (0x"
                    + Integer.toHexString(kind)
                    + ")");
      };
    } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("truncated pgoutput message", e);
    }
  }

  private static Relation relation(ByteBuffer b) {
    int oid = b.getInt();
    String namespace = string(b);
    String name = string(b);
    b.get(); // replica identity setting
    int count = Short.toUnsignedInt(b.getShort());
    List<String> columns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      b.get(); // flags: part of the key
      columns.add(string(b));
      b.getInt(); // type oid
      b.getInt(); // type modifier
    }
    return new Relation(oid, namespace, name, columns);
  }

  private static Insert insert(ByteBuffer b) {
    int oid = b.getInt();
    char marker = (char) b.get();
    if (marker != 'N') {
      throw new IllegalArgumentException("insert without a new tuple: marker '" + marker + "'");
    }
    int count = Short.toUnsignedInt(b.getShort());
    List<Value> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      char kind = (char) b.get();
      switch (kind) {
        case 'n' -> values.add(Value.NULL);
        case 'u' -> values.add(Value.UNCHANGED);
        case 't' -> {
          int length = b.getInt();
          if (length < 0 || length > b.remaining()) {
            throw new IllegalArgumentException(
                "column " + i + " claims " + length + " bytes but " + b.remaining() + " remain");
          }
          byte[] bytes = new byte[length];
          b.get(bytes);
          values.add(new Value('t', new String(bytes, StandardCharsets.UTF_8)));
        }
        case 'b' ->
            throw new IllegalArgumentException(
                "binary tuple value in column " + i + ": only proto_version 1, text, is read");
        default -> throw new IllegalArgumentException("unknown tuple value kind '" + kind + "'");
      }
    }
    return new Insert(oid, Collections.unmodifiableList(values));
  }

  /** A NUL-terminated UTF-8 string. */
  private static String string(ByteBuffer b) {
    int start = b.position();
    int end = start;
    while (b.get(end) != 0) {
      end++;
    }
    byte[] bytes = new byte[end - start];
    b.get(bytes);
    b.get(); // the NUL
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
