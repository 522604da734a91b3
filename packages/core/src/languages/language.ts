/**
 * What a language gives core, so that a request in it finds tools described in English. One folder a
 * language (`languages/<code>/`, its `index.ts` exporting `language`), one line in the registry
 * (`registry.ts`: its code, how a text is recognised as written in it, and the folder's dynamic import).
 * docs/development.md, "Add a language".
 *
 * The four questions a language answers:
 * - which language a text is in: the registry line's `detect`, by script, without the dictionary (it
 *   runs on every request, loaded or not);
 * - how a text is segmented, and how each word is glossed into the tools' language: `words`, one pass,
 *   since a dictionary language segments by its headwords (the longest one that matches);
 * - which pieces of a request carry no meaning: `carriesNoMeaning` (particles, endings; a Latin-script
 *   language's filler words, which the tokenizer then drops from the request);
 * - optionally, which of the list's own English words a word without a gloss stands for: `cognatesIn`.
 */
export interface Language {
  readonly code: string;
  /** The dictionary words of `text`, in order, each with its English glosses. */
  words(text: string): LanguageWord[];
  /**
   * Whether a piece of the request outside its dictionary words (a CJK bigram, a Latin word) carries no
   * meaning: it still scores as text but is no word of the request and does not lower its coverage.
   */
  carriesNoMeaning(piece: string): boolean;
  /**
   * Optional, for a language read without a dictionary (Latin-script languages, Korean loanwords): the
   * words of the tool list (`listTerms`, stems) that `word`, a word of the request no tool has, is a
   * loanword or cognate of ("calendario" → calendar, "캘린더" → calendar). `stem` stems an English word
   * as the list's were. Asked at ranking time, when the list is known (languages/cognate-readings.ts).
   */
  cognatesIn?(word: string, listTerms: Iterable<string>, stem: (word: string) => string): string[];
}

/** A word of a request that a language's dictionary knows, with where it is and its English glosses. */
export interface LanguageWord {
  /** The word as the request writes it ("会議", "送っ"). */
  text: string;
  /** Where it is in the request (UTF-16 offsets). */
  start: number;
  end: number;
  /** English glosses, most common sense first ("meeting", "conference", ...). */
  glosses: string[];
}
