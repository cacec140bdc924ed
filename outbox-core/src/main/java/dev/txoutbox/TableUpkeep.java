package dev.txoutbox;

import java.time.Instant;
import java.util.Optional;

/**
 * How the outbox's events table is kept, from PostgreSQL's statistics ({@code
 * pg_stat_user_tables}): its size, its dead tuples, when it was last vacuumed, and whether
 * autovacuum visits it. Every completed event leaves a dead tuple (marked and later deleted, or
 * deleted), so a table that autovacuum does not visit and nothing else vacuums ({@link
 * RelayConfig#vacuumInterval()}) grows without end. Immutable.
 *
 * @param sizeBytes the table with its indexes and TOAST ({@code pg_total_relation_size})
 * @param liveTuples the statistics' estimate of live rows
 * @param deadTuples the statistics' estimate of dead rows not yet vacuumed away
 * @param lastVacuum the latest vacuum of the table, manual or by autovacuum; empty if there was
 *     none since the statistics were last reset
 * @param autovacuum whether autovacuum visits the table: the server's {@code autovacuum} and {@code
 *     track_counts} settings are on, and the table's storage parameter {@code autovacuum_enabled}
 *     is not off
 */
public record TableUpkeep(
    long sizeBytes,
    long liveTuples,
    long deadTuples,
    Optional<Instant> lastVacuum,
    boolean autovacuum) {}
