/** One description per field of a sync server, shared by the contracts, REST's schemas and GraphQL. */
export const SERVER_DOC = {
  id: "The server's numeric id",
  name: "A name for the server",
  url: "The remote MISP's base URL (http or https), e.g. https://misp.example.org/ or this service's http://host/misp/",
  authkey: "The API key of the remote sync user: write-only, stored encrypted, never answered",
  orgId: "The organisation that owns the server: pulled events are its events (administrators may set another)",
  pullEnabled: "Scheduled pulls run only when true (a pull by hand always may)",
  pushEnabled: "Pushes run only when true",
  internal:
    "True: the remote is another instance of the same community (MISP's internal server; administrators only). Pulls then keep the remote's distribution and pushes send community-only data; otherwise, as MISP, a pull downgrades community only to your organisation only and connected communities to community only, and a push sends nothing below connected communities and connected communities as community only",
  pullRules: "Which remote events a pull takes: tags and organisations (Orgc names or uuids) to include or exclude, only events changed since a timestamp, published only",
  pushRules: "Which of the organisation's events a push sends: tags and organisations to include or exclude, published only, and the highest distribution the remote receives",
  pullCursor: "Epoch seconds: every remote event changed up to then was committed by a pull; the next pull starts there",
  lastPulledAt: "When the last pull finished",
  lastPushedAt: "When the last push finished",
  authkeySet: "True: an API key is stored (its value is never answered)",
  createdAt: "When the server was added",
  updatedAt: "When the server was last changed",
} as const;

export const RULES_DOC = {
  tags: "Tag names: with include, an event needs at least one of them; with exclude, none of them",
  orgs: "Organisations by name or uuid (the event's creator, Orgc): include and exclude as for tags",
  include: "At least one of these",
  exclude: "None of these",
  since: "Pull only: only events whose timestamp is at least this (epoch seconds)",
  publishedOnly: "Only published events (default true, as MISP)",
  maxDistribution: "Push only: events and their attributes of a higher distribution (1 this community, 2 connected, 3 all) are sent with this one; default 3",
} as const;
