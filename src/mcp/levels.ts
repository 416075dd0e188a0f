/**
 * MISP's threat and analysis levels. The REST and GraphQL layers only bound the numbers (threat
 * level 1-4, analysis 0-2: rest-shim/routes/events.ts, events.graphql.ts, misp-parse.ts); the
 * names are MISP's, for the resources and the tool descriptions a model reads.
 */
export const THREAT_LEVELS = [
  { level: 1, name: "High", meaning: "Sophisticated APT malware or 0-day attack" },
  { level: 2, name: "Medium", meaning: "APT malware" },
  { level: 3, name: "Low", meaning: "Mass-malware" },
  { level: 4, name: "Undefined", meaning: "No risk assessment (the default)" },
] as const;

export const ANALYSIS_LEVELS = [
  { level: 0, name: "Initial", meaning: "The analysis has just started (the default)" },
  { level: 1, name: "Ongoing", meaning: "The analysis is ongoing" },
  { level: 2, name: "Completed", meaning: "The analysis is complete" },
] as const;

export const MIN_THREAT_LEVEL = THREAT_LEVELS[0].level;
export const MAX_THREAT_LEVEL = THREAT_LEVELS[THREAT_LEVELS.length - 1].level;
export const MAX_ANALYSIS_LEVEL = ANALYSIS_LEVELS[ANALYSIS_LEVELS.length - 1].level;
