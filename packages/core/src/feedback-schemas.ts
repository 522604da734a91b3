// The wire contract of POST /v1/catalog/feedback (the router reports which tool it used and how it went).
import { Type, type Static } from '@sinclair/typebox';
import { MAX_NAME_CHARS, MAX_QUERY_ITEMS } from './schemas.js';

/** Events one report may carry (more: 400). */
export const MAX_FEEDBACK_EVENTS = 100;
/** Characters of a `requestId` (as the service accepts for X-Request-Id). */
export const MAX_REQUEST_ID_CHARS = 128;

export const FEEDBACK_OUTCOMES = ['selected', 'succeeded', 'failed'] as const;
export type FeedbackOutcome = (typeof FEEDBACK_OUTCOMES)[number];

export const FeedbackEventSchema = Type.Object(
  {
    requestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_REQUEST_ID_CHARS,
        description:
          "The `meta.requestId` of the search the tool came from: the service remembers the search's query for a while, so `query` need not be sent.",
      }),
    ),
    query: Type.Optional(
      Type.Union(
        [Type.String({ minLength: 1 }), Type.Array(Type.String(), { minItems: 1, maxItems: MAX_QUERY_ITEMS })],
        {
          description:
            "The request the tool was used for (as the search's `query`); required when `requestId` is absent, unknown or expired.",
        },
      ),
    ),
    context: Type.Optional(
      Type.String({
        description:
          "The search's `context`. Accepted; not learned from (as in ranking, background is not the request).",
      }),
    ),
    toolKey: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_CHARS,
      description: 'The tool the agent used, as the search returned it.',
    }),
    outcome: Type.Union(
      FEEDBACK_OUTCOMES.map((outcome) => Type.Literal(outcome)),
      {
        description:
          '`selected`: the agent picked the tool; `succeeded`: the call worked (the strongest evidence); `failed`: the call failed or the tool was wrong.',
      },
    ),
  },
  {
    $id: 'FeedbackEvent',
    additionalProperties: true,
    description:
      'One tool use. An event that cannot be used is ignored and named in `ignored`; it never fails the report.',
  },
);
export type FeedbackEvent = Static<typeof FeedbackEventSchema>;

/** The envelope as the service validates it: each event is read on its own (a bad one is ignored, not a 400). */
export const FeedbackEnvelopeSchema = Type.Object(
  { events: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_FEEDBACK_EVENTS }) },
  { additionalProperties: false },
);

/** The request as documented. */
export const FeedbackRequestSchema = Type.Object(
  {
    events: Type.Array(FeedbackEventSchema, {
      minItems: 1,
      maxItems: MAX_FEEDBACK_EVENTS,
      description: `Tool uses, at most ${MAX_FEEDBACK_EVENTS} a report.`,
    }),
  },
  { $id: 'FeedbackRequest', additionalProperties: false },
);
export type FeedbackRequest = Static<typeof FeedbackRequestSchema>;

export const IgnoredEventSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Position in `events`.' }),
    reason: Type.String({ description: 'The field and what is wrong with it.' }),
  },
  { $id: 'IgnoredEvent', additionalProperties: false },
);

export const FeedbackResponseSchema = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0, description: 'Events learned from.' }),
    ignored: Type.Array(IgnoredEventSchema, { description: 'Events that could not be used, each with why.' }),
  },
  { $id: 'FeedbackResponse', additionalProperties: false },
);
export type FeedbackResponse = Static<typeof FeedbackResponseSchema>;
