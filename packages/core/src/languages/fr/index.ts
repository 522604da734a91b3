import { latinLanguage } from '../latin-language.js';

/** French, read without a dictionary (latin-language.ts): filler words dropped, cognates of the list's words. */
export const language = latinLanguage({
  code: 'fr',
  filler:
    "s'il te vous plaît plait peux pouvez peut-être montre montrer donne donner fais faire veux voudrais " +
    'besoin aide aider ici maintenant lui eux me te se ' +
    // Elided before a vowel (qu'est-ce, j'ai: the tokenizer reads them apart, elision.ts) and avoir.
    'qu ai as avons avez ont',
  // sécurité → security, dictionnaire → dictionary, actif → active. (Not -ête → -est: requête is a
  // query, and read as "request" it put add_issue_comment above create_issue.)
  endings: [
    ['ité', 'ity'],
    ['ite', 'ity'],
    ['aire', 'ary'],
    ['ique', 'ic'],
    ['if', 'ive'],
    ['er', 'e'],
    ['es', ''],
    ['s', ''],
    ['e', ''],
  ],
});
