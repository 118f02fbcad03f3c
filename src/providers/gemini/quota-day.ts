/**
 * Gemini's requests-per-day quota resets at midnight Pacific time (America/Los_Angeles, DST-aware), not UTC.
 * Source: docs/providers.md "Gemini API" (https://ai.google.dev/gemini-api/docs/rate-limits: "Requests per day (RPD)
 * quotas reset at midnight Pacific time").
 */
import { zonedQuotaDay } from '../zoned-quota-day.js';

/** The calendar of Gemini's (and Vertex's) daily quotas. */
export const PACIFIC_DAY = zonedQuotaDay('America/Los_Angeles', 'PT');
