package dev.txoutbox.internal.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.ResultQuery;
import org.jooq.impl.DSL;

/**
 * A query jOOQ renders once and the relay runs many times with other values. jOOQ renders the
 * ordered claim's recursive statement in about a millisecond of CPU, more than the database takes
 * to run it, on every call. This keeps the SQL jOOQ rendered from a statement built with sentinel
 * values, binds the real values where the sentinels were, and reads the records with the
 * statement's own typed fields. Immutable and thread-safe. Public for outbox-wal's facade ({@code
 * internal.kernel.RelayKernel}), for the WAL relay's statements of every batch.
 */
public final class RenderedOnce {

  private final String sql;
  private final Field<?>[] fields;
  private final List<Param<?>> params;

  /** Which sentinel each bind value is, or -1 for a value of the statement itself. */
  private final int[] slots;

  /**
   * @param statement the statement, built with {@code sentinels} among its values
   * @param sentinels values that occur in the statement only where a run's values go
   * @throws IllegalArgumentException if a sentinel does not occur in the statement
   */
  public RenderedOnce(DSLContext dsl, ResultQuery<Record> statement, List<Object> sentinels) {
    this(dsl, statement, statement.fields(), sentinels);
  }

  /**
   * A statement without a result, for {@link #prepare} only.
   *
   * @throws IllegalArgumentException if a sentinel does not occur in the statement
   */
  public RenderedOnce(DSLContext dsl, Query statement, List<Object> sentinels) {
    this(dsl, statement, new Field<?>[0], sentinels);
  }

  private RenderedOnce(String sql, Field<?>[] fields, List<Param<?>> params, int[] slots) {
    this.sql = sql;
    this.fields = fields;
    this.params = params;
    this.slots = slots;
  }

  /**
   * This statement and then {@code next}, sent together ({@link #prepare} runs both in one round
   * trip, pgjdbc sending the second before it waits for the first's result): the result read is
   * this statement's. For a statement without bind values that must run after this one in the same
   * transaction, such as a setting for the statements that follow.
   *
   * @throws IllegalArgumentException if {@code next} has bind values
   */
  RenderedOnce followedBy(DSLContext dsl, Query next) {
    for (Param<?> p : dsl.extractParams(next).values()) {
      if (!p.isInline()) {
        throw new IllegalArgumentException(
            "the statement that follows must have no bind values but had " + p);
      }
    }
    return new RenderedOnce(sql + ";\n" + dsl.render(next), fields, params, slots);
  }

  private RenderedOnce(DSLContext dsl, Query statement, Field<?>[] fields, List<Object> sentinels) {
    this.sql = dsl.render(statement);
    this.fields = fields;
    this.params = List.copyOf(dsl.extractParams(statement).values());
    this.slots = new int[params.size()];
    boolean[] seen = new boolean[sentinels.size()];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = indexOf(sentinels, params.get(i).getValue());
      if (slots[i] >= 0) {
        seen[slots[i]] = true;
      }
    }
    for (int s = 0; s < seen.length; s++) {
      if (!seen[s]) {
        throw new IllegalArgumentException(
            "the statement must contain the sentinel "
                + Objects.toString(sentinels.get(s))
                + " but did not");
      }
    }
  }

  /** Where {@code value} is among {@code sentinels}; numbers compare by value, whatever type. */
  private static int indexOf(List<Object> sentinels, Object value) {
    for (int s = 0; s < sentinels.size(); s++) {
      Object sentinel = sentinels.get(s);
      boolean same =
          (sentinel instanceof Number a && value instanceof Number b)
              ? a.longValue() == b.longValue()
              : Objects.deepEquals(sentinel, value);
      if (same) {
        return s;
      }
    }
    return -1;
  }

  /**
   * The statement prepared on {@code connection} with {@code values} bound where the sentinels
   * were, for reading its result positionally: jOOQ's records cost more CPU than the database takes
   * to claim the batch. A {@code UUID[]} is bound as a {@code uuid[]}.
   *
   * @throws IllegalStateException if the statement has bind values of its own, which only jOOQ
   *     binds; see {@link #bind}
   */
  public PreparedStatement prepare(Connection connection, List<?> values) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      int index = 0;
      for (int i = 0; i < slots.length; i++) {
        if (params.get(i).isInline()) {
          continue; // in the SQL text
        }
        index++;
        if (slots[i] < 0) {
          throw new IllegalStateException(
              "bind value " + index + " must be a sentinel but was " + params.get(i));
        }
        Object value = values.get(slots[i]);
        if (value instanceof UUID[] ids) {
          UuidArray.bind(statement, index, ids);
        } else {
          statement.setObject(index, value);
        }
      }
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  /** The statement with {@code values} in place of the sentinels, in the same order. */
  ResultQuery<Record> bind(DSLContext tx, List<?> values) {
    List<Object> bindings = new ArrayList<>(params.size());
    for (int i = 0; i < slots.length; i++) {
      Param<?> p = params.get(i);
      bindings.add(slots[i] < 0 ? p : DSL.val(values.get(slots[i]), p.getDataType()));
    }
    // Plain SQL here is jOOQ's own rendering of the statement, kept; see the class comment.
    return tx.resultQuery(sql, bindings.toArray()).coerce(fields);
  }
}
