/**
 * The emulator's data follows the date. A test whose code reads the clock (a recipe's "last N
 * days", a nightly run) must export the last days, whatever they are, and on some days a given
 * project has too little data there. Such a test takes, from a fixed list, the first project
 * whose data in those days has what it needs: the same project every run of a day, and the
 * precondition named when none has it.
 */
export function projectWithData(candidates: readonly string[], need: string, has: (projectId: string) => boolean): string {
  const found = candidates.find(has);
  if (found === undefined) throw new Error(`none of the projects ${candidates.join(', ')} has ${need} in the emulator's data of these days`);
  return found;
}
