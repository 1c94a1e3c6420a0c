// `edgesync completion bash|zsh|fish`: shell completion made from the program itself, so every
// command, subcommand and flag it offers is one the command line takes.

import { Argument, type Command, type Option } from 'commander';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** A command's words: its subcommands and its flags, each with what it says of itself. */
interface Words {
  readonly path: readonly string[];
  readonly commands: readonly { readonly name: string; readonly about: string }[];
  readonly flags: readonly { readonly flag: string; readonly about: string; readonly choices?: readonly string[] }[];
}

function wordsOf(cmd: Command, path: readonly string[] = []): Words[] {
  const own: Words = {
    path,
    commands: cmd.commands.map((c) => ({ name: c.name(), about: c.description() })),
    flags: [
      ...cmd.options.map((o: Option) => ({ flag: o.long ?? o.short ?? '', about: o.description, ...(o.argChoices && { choices: o.argChoices }) })),
      { flag: '--help', about: 'show help' },
    ].filter((f) => f.flag !== ''),
  };
  return [own, ...cmd.commands.flatMap((c) => wordsOf(c, [...path, c.name()]))];
}

const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(all: readonly Words[]): string {
  const cases = all.map((w) => {
    const words = [...w.commands.map((c) => c.name), ...w.flags.map((f) => f.flag)].join(' ');
    const choices = w.flags.filter((f) => f.choices).map((f) => `      ${f.flag}) COMPREPLY=($(compgen -W ${quoted(f.choices!.join(' '))} -- "$cur")); return ;;`);
    return `    ${quoted(w.path.join(' '))})\n      case "$prev" in\n${choices.join('\n')}${choices.length ? '\n' : ''}      esac\n      words=${quoted(words)} ;;`;
  });
  return `# edgesync completion for bash: eval "$(edgesync completion bash)" in ~/.bashrc
_edgesync() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" at="" words="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) case " $(_edgesync_commands "$at") " in *" \${COMP_WORDS[i]} "*) at="\${at:+$at }\${COMP_WORDS[i]}" ;; esac ;; esac
  done
  case "$at" in
${cases.join('\n')}
  esac
  if [[ "$cur" != -* && -z "$words" ]]; then return; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [[ "$cur" != -* ]] && COMPREPLY+=($(compgen -f -- "$cur"))
}
_edgesync_commands() {
  case "$1" in
${all.map((w) => `    ${quoted(w.path.join(' '))}) echo ${quoted(w.commands.map((c) => c.name).join(' '))} ;;`).join('\n')}
  esac
}
complete -o filenames -F _edgesync edgesync
`;
}

function fish(all: readonly Words[]): string {
  const lines = ['# edgesync completion for fish: edgesync completion fish > ~/.config/fish/completions/edgesync.fish', 'complete -c edgesync -f'];
  for (const w of all) {
    // fish's "seen" test: the command path so far, and no subcommand of it yet.
    const at =
      w.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${w.path.at(-1)}${w.commands.length ? `; and not __fish_seen_subcommand_from ${w.commands.map((c) => c.name).join(' ')}` : ''}`;
    for (const c of w.commands) lines.push(`complete -c edgesync -n ${quoted(at)} -a ${quoted(c.name)} -d ${quoted(c.about)}`);
    for (const f of w.flags) {
      lines.push(`complete -c edgesync -n ${quoted(at)} -l ${f.flag.replace(/^--/, '')} -d ${quoted(f.about)}${f.choices ? ` -x -a ${quoted(f.choices.join(' '))}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function zsh(all: readonly Words[]): string {
  const cases = all.map((w) => {
    const specs = [
      ...w.flags.map((f) => quoted(`${f.flag}[${f.about.replace(/[[\]:]/g, ' ')}]${f.choices ? `:value:(${f.choices.join(' ')})` : ''}`)),
      ...(w.commands.length
        ? [quoted(`1:command:((${w.commands.map((c) => `${c.name}\\:${quoted(c.about).slice(1, -1).replace(/[:()]/g, ' ').replace(/ /g, '\\ ')}`).join(' ')}))`), "'*::arg:->rest'"]
        : ["'*:file:_files'"]),
    ];
    return `    ${quoted(w.path.join(' '))}) _arguments -s ${specs.join(' ')} ;;`;
  });
  return `#compdef edgesync
# edgesync completion for zsh: edgesync completion zsh > "\${fpath[1]}/_edgesync"
_edgesync() {
  local at="" w
  for w in \${words[2,CURRENT-1]}; do
    [[ $w == -* ]] && continue
    case " $(_edgesync_commands "$at") " in *" $w "*) at="\${at:+$at }$w" ;; esac
  done
  case "$at" in
${cases.join('\n')}
  esac
}
_edgesync_commands() {
  case "$1" in
${all.map((w) => `    ${quoted(w.path.join(' '))}) print -r -- ${quoted(w.commands.map((c) => c.name).join(' '))} ;;`).join('\n')}
  esac
}
_edgesync "$@"
`;
}

/** The completion script of `program` for `shell`. */
export function completionScript(program: Command, shell: Shell): string {
  const all = wordsOf(program);
  return shell === 'bash' ? bash(all) : shell === 'zsh' ? zsh(all) : fish(all);
}

export function register(program: Command): void {
  program
    .command('completion')
    .description('print shell completion for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action((shell: Shell) => {
      process.stdout.write(completionScript(program, shell));
    });
}
