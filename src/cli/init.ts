// `edgesync init [DIR]`: a starting config root that validates as written; nothing is read from an
// account or sent.

import { type Command, Option } from 'commander';

interface InitFlags {
  readonly kinds?: string;
  readonly ci?: 'github' | 'gitlab';
}

export function register(program: Command): void {
  program
    .command('init')
    .description('write a starting config root: one commented document per kind, a .gitignore, a CI recipe')
    .argument('[dir]', 'the folder to write it in (made when missing)', '.')
    .option('--kinds <k,…>', 'kinds to write a document of, or all (default: WorkerScript,WorkerRoute,KvPairs); what they need is added')
    .addOption(new Option('--ci <forge>', 'add the CI recipe for this forge (examples/ci)').choices(['github', 'gitlab']))
    .action(async (dir: string, flags: InitFlags) => {
      const { INIT_KINDS, starterFiles, writeStarter } = await import('../init/index.js');
      const kinds = flags.kinds === undefined ? undefined : flags.kinds.trim() === 'all' ? INIT_KINDS : flags.kinds.split(',').map((k) => k.trim());
      const files = starterFiles({ dir, ...(kinds && { kinds }), ...(flags.ci && { ci: flags.ci }) });
      writeStarter(dir, files);
      const shown = files.filter((f) => !f.path.includes('/') || f.path.endsWith('.yml')).map((f) => f.path);
      process.stdout.write(
        `Wrote ${files.length} files to ${dir}: ${shown.join(', ')}.\n` +
          `Next: edit the documents (ACCOUNT_ID and the ids they name), then \`edgesync validate --config ${dir}\` and \`edgesync plan --config ${dir}\`.\n`,
      );
    });
}
