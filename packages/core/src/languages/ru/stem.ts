// A light Russian suffix stripper: a word's case, number or verb ending taken off once, so that the
// forms a request writes read as one word (календаре, календарь, календаря: календар; отмени, отменить:
// отмен). Not a full stemmer (no derivational suffixes): it only has to bring a request's word to the
// stem the core words (core-words.ts) and the transliteration (transliterate.ts) start from.

// Endings, longest first; a reflexive -ся/-сь comes off before them.
const ENDINGS = [
  // Verbs: infinitive and imperative, what a request writes. Not the present's -ет/-ит nor the past's
  // -ал/-ли: they end too many nouns (формат, канал, модели).
  ...['ировать', 'ируйте', 'ируй', 'ить', 'ать', 'ять', 'еть', 'ти', 'айте', 'яйте', 'ите', 'ьте', 'ай', 'яй'],
  // Adjectives and participles.
  ...['ого', 'его', 'ому', 'ему', 'ыми', 'ими', 'ая', 'яя', 'ое', 'ее', 'ые', 'ие', 'ый', 'ий', 'ой'],
  ...['ую', 'юю', 'ых', 'их', 'ым', 'им'],
  // Nouns (not -ем: проблем is a stem).
  ...['иями', 'ями', 'ами', 'иях', 'ях', 'ах', 'ов', 'ев', 'ей', 'ям', 'ам', 'ом', 'ия', 'ии', 'ию'],
  ...['а', 'я', 'у', 'ю', 'е', 'ы', 'и', 'о', 'ь', 'й'],
].sort((a, b) => b.length - a.length);
// A stem keeps at least this many letters: "база" is баз, "дом" stays дом.
const MIN_STEM = 3;

/** Lower case, ё as е (as most Russian is typed). */
export const foldRussian = (word: string): string => word.toLowerCase().replaceAll('ё', 'е');

/** `word` (folded) without its ending. */
export function russianStem(word: string): string {
  let stem = word;
  for (const reflexive of ['ся', 'сь'])
    if (stem.endsWith(reflexive) && stem.length - 2 >= MIN_STEM + 1) {
      stem = stem.slice(0, -2);
      break;
    }
  for (const ending of ENDINGS)
    if (stem.endsWith(ending) && stem.length - ending.length >= MIN_STEM) return stem.slice(0, -ending.length);
  return stem;
}
