/** One versioned schema change. */
export interface Migration {
  /** Applied in ascending order; recorded in `schema_migrations` once applied. Never reuse one. */
  readonly version: number;
  readonly name: string;
  /**
   * The statements, given the database name. Each must be safe to run again (`IF NOT EXISTS`, …):
   * a crash between a statement and the version record replays the whole migration, and two
   * processes starting against one server may both apply it.
   */
  readonly statements: (database: string) => readonly string[];
}
