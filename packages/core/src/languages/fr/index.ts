import { latinLanguage } from '../latin-language.js';

/** French, read without a dictionary (latin-language.ts): filler words dropped, cognates of the list's words. */
export const language = latinLanguage({
  code: 'fr',
  filler:
    "s'il te vous plaît plait peux pouvez peut-être montre montrer donne donner fais faire veux voudrais " +
    'besoin aide aider ici maintenant lui eux me te se',
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
