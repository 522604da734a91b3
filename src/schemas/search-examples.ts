// The documented example: a router with GitHub, Slack, filesystem and Google Calendar MCP servers
// connected, asked for a two-step task. The response shows the shape, not a promise about exact
// scores (the test suite checks that it validates against the response schema).
import type {
  GroupedSearchRequest,
  ReferenceSearchRequest,
  SearchResponse,
  ToolListSearchRequest,
} from '@catalog-search/core';
import { EXAMPLE_REQUEST_ID } from './responses.js';

/** core's toolSetId of EXAMPLE_SEARCH_REQUEST.tools (a test checks that it still is). */
export const EXAMPLE_TOOL_SET = 'Sjzj0o5rfDapWeV9wVYeX4PQzocfoVcD6tvKijCi5a0';

export const EXAMPLE_SEARCH_REQUEST: ToolListSearchRequest = {
  query: ['schedule a 30 minute design review next Tuesday', 'post the meeting link in the #design Slack channel'],
  context: 'The user is organising a design review and wants the team invited and notified.',
  maxResults: 3,
  tools: [
    {
      toolKey: 'github:create_issue',
      toolName: 'create_issue',
      serverName: 'GitHub',
      description: 'Open a new issue in a GitHub repository with a title, body, labels and assignees.',
      inputSchema: {
        type: 'object',
        properties: {
          owner: { type: 'string', description: 'Repository owner' },
          repo: { type: 'string', description: 'Repository name' },
          title: { type: 'string', description: 'Issue title' },
          body: { type: 'string', description: 'Issue description in Markdown' },
        },
        required: ['owner', 'repo', 'title'],
      },
    },
    {
      toolKey: 'slack:slack_post_message',
      toolName: 'slack_post_message',
      serverName: 'Slack',
      description: 'Send a new message to a Slack channel.',
      inputSchema: {
        type: 'object',
        properties: {
          channel_id: { type: 'string', description: 'The ID of the channel to post to' },
          text: { type: 'string', description: 'The message text to post' },
        },
        required: ['channel_id', 'text'],
      },
    },
    {
      toolKey: 'slack:slack_list_channels',
      toolName: 'slack_list_channels',
      serverName: 'Slack',
      description: 'List the public channels of the workspace, page by page.',
    },
    {
      toolKey: 'filesystem:read_file',
      toolName: 'read_file',
      serverName: 'Filesystem',
      description: 'Read a whole file from the file system and return its text.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    {
      toolKey: 'google-calendar:create_event',
      toolName: 'create_event',
      serverName: 'Google Calendar',
      description:
        'Create a calendar event with a title, start and end time, attendees and an optional video meeting link.',
      inputSchema: {
        type: 'object',
        properties: {
          summary: { type: 'string', description: 'Event title' },
          start: { type: 'string', format: 'date-time' },
          end: { type: 'string', format: 'date-time' },
          attendees: { type: 'array', items: { type: 'string', format: 'email' } },
          conferenceData: { type: 'boolean', description: 'Add a video meeting link' },
        },
        required: ['summary', 'start', 'end'],
      },
    },
  ],
};

export const EXAMPLE_SEARCH_RESPONSE: SearchResponse = {
  results: [
    {
      toolKey: 'google-calendar:create_event',
      toolName: 'create_event',
      serverName: 'Google Calendar',
      description:
        'Create a calendar event with a title, start and end time, attendees and an optional video meeting link.',
      relevance: 0.94,
      explanation: 'Creates the 30 minute meeting with attendees and a video link (step 1).',
    },
    {
      toolKey: 'slack:slack_post_message',
      toolName: 'slack_post_message',
      serverName: 'Slack',
      description: 'Send a new message to a Slack channel.',
      relevance: 0.88,
      explanation: 'Posts the meeting link to the #design channel (step 2).',
    },
    {
      toolKey: 'slack:slack_list_channels',
      toolName: 'slack_list_channels',
      serverName: 'Slack',
      description: 'List the public channels of the workspace, page by page.',
      relevance: 0.41,
      explanation: 'Finds the id of the #design channel that slack_post_message needs.',
    },
  ],
  meta: { ranker: 'llm', requestId: EXAMPLE_REQUEST_ID, toolSet: EXAMPLE_TOOL_SET },
};

/** The same search answered while the model was too slow: lexical ranking, and `degraded` says why. */
export const EXAMPLE_DEGRADED_SEARCH_RESPONSE: SearchResponse = {
  results: EXAMPLE_SEARCH_RESPONSE.results.map(({ explanation: _explanation, ...result }, index) => ({
    ...result,
    relevance: [0.71, 0.66, 0.32][index] ?? 0.1,
    explanation: 'Lexical match on the query terms (the LLM rerank did not finish before the deadline).',
  })),
  meta: { ranker: 'bm25', degraded: 'timeout', requestId: EXAMPLE_REQUEST_ID, toolSet: EXAMPLE_TOOL_SET },
};

/** The same search by reference: the list was sent before, and the answer gave its id (`meta.toolSet`). */
export const EXAMPLE_SEARCH_BY_REFERENCE: ReferenceSearchRequest = {
  query: EXAMPLE_SEARCH_REQUEST.query,
  context: EXAMPLE_SEARCH_REQUEST.context!,
  maxResults: EXAMPLE_SEARCH_REQUEST.maxResults!,
  toolSet: EXAMPLE_TOOL_SET,
};

/** A router's grouped form: each server's `tools/list` result as it came (MCP Tool objects). */
export const EXAMPLE_GROUPED_SEARCH_REQUEST: GroupedSearchRequest = {
  query: ['post the release notes in the #releases Slack channel'],
  maxResults: 3,
  servers: [
    {
      serverId: 'slack',
      serverName: 'Slack',
      tools: [
        {
          name: 'slack_post_message',
          description: 'Send a new message to a Slack channel.',
          inputSchema: {
            type: 'object',
            properties: { channel_id: { type: 'string' }, text: { type: 'string' } },
            required: ['channel_id', 'text'],
          },
          annotations: { readOnlyHint: false, destructiveHint: false },
        },
        {
          name: 'slack_list_channels',
          description: 'List the public channels of the workspace, page by page.',
          inputSchema: { type: 'object', properties: { cursor: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        },
      ],
    },
    {
      serverId: 'filesystem',
      tools: [
        {
          name: 'read_file',
          title: 'Read file',
          description: 'Read a whole file from the file system and return its text.',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          annotations: { readOnlyHint: true },
        },
      ],
    },
  ],
};

/** Filters narrow the list before ranking; a tag boost raises tagged tools; minRelevance drops weak matches. */
export const EXAMPLE_FILTERED_SEARCH_REQUEST: ToolListSearchRequest = {
  query: ['find the channel for design discussions'],
  filter: { servers: ['slack', 'filesystem'], tools: ['!*delete*'], readOnly: true },
  boost: { tags: ['chat'] },
  minRelevance: 0.3,
  tools: [
    {
      toolKey: 'slack:slack_list_channels',
      toolName: 'slack_list_channels',
      serverName: 'Slack',
      description: 'List the public channels of the workspace, page by page.',
      annotations: { readOnlyHint: true },
      tags: ['chat'],
    },
    {
      toolKey: 'slack:slack_delete_channel',
      toolName: 'slack_delete_channel',
      serverName: 'Slack',
      description: 'Archive and delete a channel.',
      annotations: { destructiveHint: true },
    },
    {
      toolKey: 'filesystem:search_files',
      toolName: 'search_files',
      serverName: 'Filesystem',
      description: 'Find files whose names match a pattern.',
      annotations: { readOnlyHint: true },
    },
  ],
};

/** Two of the router's tools could not be used: the search still answers, and says which and why. */
export const EXAMPLE_SKIPPED_SEARCH_RESPONSE: SearchResponse = {
  results: EXAMPLE_DEGRADED_SEARCH_RESPONSE.results.slice(0, 2),
  meta: {
    ranker: 'bm25',
    requestId: EXAMPLE_REQUEST_ID,
    skipped: [
      { index: 5, toolKey: 'toolink:', reason: '/tools/5/toolName: must be a non-empty string' },
      {
        index: 9,
        toolKey: 'slack:slack_post_message',
        reason: '/tools/9: repeats the toolKey of tool 1; the first is kept',
      },
    ],
    skippedCount: 2,
  },
};
