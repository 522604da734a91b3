import type { Language } from './language.js';

// A word with a short head and an apostrophe: French and Italian elide an article, a pronoun or a
// preposition into the next word ("l'équipe", "d'onboarding", "qu'est", "un'e-mail", "dell'app").
const ELIDED = /^(\p{L}{1,5})['’](\p{L}.*)$/u;

/**
 * `word` without an elided filler word before it ("l'équipe" → "équipe"), when the head is one of the
 * language's filler words; else `word`. The tokenizer joins across an apostrophe (English "don't",
 * "user's"), which made "d'onboarding" the term "donboarding" and "l'équipe" "lequipe".
 */
export function withoutElision(word: string, language: Language): string {
  const match = ELIDED.exec(word);
  return match !== null && language.carriesNoMeaning(match[1]!) ? match[2]! : word;
}
