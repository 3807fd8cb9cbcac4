/**
 * Base of every error mintpipe raises on purpose. `expected` errors are reported as one line
 * (no stack); `exitCode` is what the CLI exits with when one reaches the top.
 */
export class MintpipeError extends Error {
  override name = 'MintpipeError';
  /** Process exit code when this error ends a CLI command. */
  exitCode = 1;
  /** An anticipated failure: printed as one line, without a stack trace. */
  expected = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Bad flags, dates, files or settings: the user must change the input. Exit code 2. */
export class UsageError extends MintpipeError {
  override name = 'UsageError';
  override exitCode = 2;
}
