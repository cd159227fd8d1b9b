// The error for bad input on the command line (a flag, a folder, a file): the runner
// prints its message as the one line a user sees and exits 2. Not for failures of the
// code being run: those are reported as what they are.

export class UsageError extends Error {}
