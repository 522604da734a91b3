import { latinLanguage } from '../latin-language.js';

/** German, read without a dictionary (latin-language.ts): filler words dropped, cognates of the list's words. */
export const language = latinLanguage({
  code: 'de',
  filler:
    'bitte mal doch ja zeig zeige zeigen gib gebe geben mach mache machen möchte möchten will wollen brauche ' +
    'brauchen hilf hilfe kannst könntest du sie ihm ihn ihnen es dort hier jetzt gerade einfach',
  // Tabelle → table, Information → information, Adresse → address, Kalender → calendar (k for c).
  endings: [
    ['ationen', 'ation'],
    ['tionen', 'tion'],
    ['ellen', 'le'],
    ['elle', 'le'],
    ['ieren', 'y'],
    ['isch', 'ic'],
    ['ität', 'ity'],
    ['itat', 'ity'],
    ['en', ''],
    ['e', ''],
    ['s', ''],
  ],
  letters: [['k', 'c']],
});
