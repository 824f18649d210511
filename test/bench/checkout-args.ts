// The command line of the scripts that compare builds: checkouts as positional arguments,
// `--name value` options beside them.

/**
 * The checkouts named on the command line and a reader of its `--name value` options;
 * exits with `usage` when fewer than `least` or more than `most` checkouts are given.
 *
 * @example
 * const { dirs, option } = checkoutArgs("usage: x.ts <checkout> [--rounds 31]");
 * const rounds = Number(option("--rounds") ?? 31);
 */
export function checkoutArgs(usage: string, least = 1, most = Number.POSITIVE_INFINITY) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const dirs = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
  if (dirs.length < least || dirs.length > most) {
    console.error(usage);
    process.exit(2);
  }
  return { dirs, option };
}
