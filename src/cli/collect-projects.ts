/**
 * `--project` as commander collects it: repeatable and comma-separated. A file of its own so that
 * registering the commands (all `--help` and usage errors need) loads nothing else.
 */
export const collectProjects = (value: string, previous: string[]): string[] => [...previous, ...value.split(',')];
