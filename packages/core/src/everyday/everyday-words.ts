/**
 * The everyday-words lexicon: how people and their agents write what tool descriptions say in the API's
 * words. Written and curated by the catalog-search team for tool search (Apache-2.0, like the rest of
 * the project's code; no third-party data). Sources, the rules for an entry and the measurements that
 * kept each family are in README.md beside this file.
 *
 * One entry a line: `family: word, word => target; target`. A word is what a request may say (one or two
 * words, lower case); a target is what a tool may say instead (a word or a phrase: a phrase's words all
 * count, as one reading). Entries are one-way: a request that says the word also matches the targets,
 * more weakly than its own word, never the other way round unless a line says so.
 */
export const EVERYDAY_WORDS = `
abbreviations: repo, repos => repository
abbreviations: pr, prs => pull request
abbreviations: mr, mrs => merge request
abbreviations: db, dbs => database
abbreviations: dir, dirs => directory
abbreviations: msg, msgs => message
abbreviations: config, configs, cfg, conf => configuration; config; settings
abbreviations: auth => authentication; authorization; login
abbreviations: env, envs => environment
abbreviations: docs => documents; documentation
abbreviations: doc => document; documentation
abbreviations: info => information; details; metadata
abbreviations: k8s, kube => kubernetes
abbreviations: img, imgs, pic, pics => image
abbreviations: dm, dms => direct message
abbreviations: org, orgs => organization
abbreviations: addr => address
abbreviations: desc => description
abbreviations: pwd, passwd => password
abbreviations: tz => timezone; time zone
abbreviations: app, apps => application
abbreviations: stats => statistics
abbreviations: cal => calendar
abbreviations: appt, appts => appointment; event
abbreviations: mtg, mtgs => meeting; event
abbreviations: txt => text
abbreviations: vm, vms => virtual machine; instance
abbreviations: fs => filesystem; file system
abbreviations: ppt, slides => presentation
abbreviations: xls, xlsx => spreadsheet
abbreviations: calc => calculate
abbreviations: vid, vids => video
abbreviations: notif, notifs => notification
abbreviations: avg => average
abbreviations: dev => development; developer
abbreviations: prod => production
abbreviations: ci => pipeline; workflow
abbreviations: gh => github
abbreviations: postgres, pg => postgresql
abbreviations: gcal => google calendar
abbreviations: gdrive => google drive
abbreviations: todo, todos, to-do => task
verbs: make, new, start, set up, setup, spin up, add => create
verbs: open => create; read; navigate
verbs: look up, lookup, browse, find, query => search
verbs: google, bing => web search; search
verbs: ask => query; search
verbs: search => find
verbs: show, view, see, display, check, look at => list; get; read; query
verbs: fetch, grab => get; download; read
verbs: remove, erase, cancel, drop, trash, destroy, wipe, del, rm, purge, get rid => delete
verbs: stop, halt, end => kill; terminate; stop
verbs: combine, join => merge
verbs: go to, visit, browse to, navigate to => navigate
verbs: pick, choose => select
verbs: mouse over, hover over => hover
verbs: type, enter, fill in => fill; type
verbs: hit, press => press
verbs: mark done, tick off, complete, finish => close; complete
verbs: say, write to, tell => send; post; comment
verbs: where, wheres => search; find; locate
verbs: file, log, report, raise => create
verbs: thumbs up, upvote => reaction; react
verbs: edit, change, modify, reschedule, adjust, amend, tweak, move => update
verbs: rename => move; update
verbs: post, notify, ping, dm => send
verbs: send => post
verbs: respond, answer => reply
verbs: upload, save, store => write; upload; create
verbs: put => add; write; upload
verbs: run, execute, launch, trigger, kick off => run
verbs: invite => add
verbs: schedule, book => create
verbs: summarize, summarise => summary
verbs: translate => translation
nouns: folder, folders => directory
nouns: directory => folder
nouns: mail, mails, inbox, e-mail => email; mail
nouns: meeting, meetings, call, calls, appointment, standup, stand-up, sync => event
nouns: event => meeting
nouns: ticket, tickets, bug, bugs => issue
nouns: note, notes, wiki => page; note
nouns: site, website, webpage, web page, link => url; web; page
nouns: internet, online => web
nouns: chat, chats, dm => message; channel
nouns: picture, pictures, photo, photos => image
nouns: who, whos, person, people, contact, contacts, member, members, teammate, colleague, coworker => user
nouns: room => channel
nouns: emoji => reaction
nouns: spreadsheet => sheet
nouns: sheet => spreadsheet
nouns: convo, conversation => thread; message
nouns: code base, codebase => repository; code
nouns: schedule, agenda => calendar; event
nouns: weather => forecast
nouns: dropdown => select; option
nouns: size, big, large, bigger, biggest, largest, disk space => size
nouns: newest, most recent => latest
nouns: today, now, right now => current
nouns: how much => price; cost
nouns: forecast => weather
nouns: song, track => music
nouns: map, directions => route
`;
