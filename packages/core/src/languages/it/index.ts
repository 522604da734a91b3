import { latinLanguage } from '../latin-language.js';

/** Italian, read without a dictionary (latin-language.ts): filler words dropped, cognates of the list's words. */
export const language = latinLanguage({
  code: 'it',
  filler:
    'per favore puoi potresti mostra mostrami dammi voglio vorrei ho bisogno aiuta aiutami qui ora lui lei loro mi ti ' +
    // Elided before a vowel (l'app, dell'utente, un'e-mail: read apart, elision.ts).
    'l dell dall nell sull all quell',
  // informazione → information, città → city, calendario → calendar, tabella → table.
  endings: [
    ['zioni', 'tion'],
    ['zione', 'tion'],
    ['tà', 'ty'],
    ['ta', 'ty'],
    ['ario', 'ary'],
    ['ari', 'ary'],
    ['ico', 'ic'],
    ['ica', 'ic'],
    ['ivo', 'ive'],
    ['elle', 'le'],
    ['ella', 'le'],
    ['i', ''],
    ['o', ''],
    ['a', ''],
    ['e', ''],
  ],
});
