/**
 * Which writing systems an encoder reads, as Unicode script names (`Latin`, `Cyrillic`, `Han`, …).
 * A request written mostly in other scripts reaches the encoder as unknown symbols: its vector then sits
 * near every tool alike (the embedded encoder gives one and the same vector for every Japanese request),
 * and the "most similar" tools are noise that would come back as matches by meaning. Such a request is
 * left to the words. What an encoder reads is its own property: the embedded encoder's vocabulary is
 * English (Latin letters only); an endpoint's model reads what `EMBEDDINGS_SCRIPTS` says (every script
 * when unset).
 */
export type EncoderScripts = readonly string[] | undefined;

/** A request is read when at least this share of its letters is in a script the encoder reads. */
const READ_SHARE = 0.5;

const LETTER = /\p{L}/gu;
// One pattern per encoder's script list (an encoder keeps its list for its life).
const patterns = new WeakMap<readonly string[], RegExp>();

/** A pattern matching one letter of any of `scripts`; throws a SyntaxError on a name Unicode does not know. */
function scriptPattern(scripts: readonly string[]): RegExp {
  return new RegExp(scripts.map((name) => `\\p{Script=${name}}`).join('|'), 'u');
}

/**
 * Whether an encoder that reads `scripts` reads `text`: true when `scripts` is undefined (every script),
 * when the text has no letters (digits and signs mean the same in every script), or when at least half
 * of its letters are in those scripts.
 */
export function readsText(text: string, scripts: EncoderScripts): boolean {
  if (scripts === undefined) return true;
  const letters = text.match(LETTER);
  if (letters === null) return true;
  let pattern = patterns.get(scripts);
  if (pattern === undefined) patterns.set(scripts, (pattern = scriptPattern(scripts)));
  let read = 0;
  for (const letter of letters) if (pattern.test(letter)) read += 1;
  return read >= READ_SHARE * letters.length;
}
