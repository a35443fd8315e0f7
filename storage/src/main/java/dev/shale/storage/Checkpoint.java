package dev.shale.storage;

import java.nio.file.Path;

/**
 * What {@link Engine#checkpoint} made: a directory that opens as a store holding the engine's
 * data of one moment.
 *
 * @param path the checkpoint's directory
 * @param tables the tables it names (hard links to the engine's own)
 * @param bytes the tables' size on disk (shared with the engine's files while both exist)
 */
public record Checkpoint(Path path, int tables, long bytes) {}
