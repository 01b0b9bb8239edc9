import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { brandContextSchema } from '../contract/brand-context.js';
import {
  type Campaign,
  campaignPageSchema,
  campaignSchema,
  campaignSummarySchema,
} from '../contract/campaigns.js';
import { problemSchema as serviceProblemSchema } from '../contract/problem.js';

/**
 * What the service answers, as the MCP server checks it and advertises it (tool output schemas): every JSON
 * response is parsed with these before it reaches the model, so what a client receives always matches the
 * advertised schema (unknown fields are dropped rather than failing the client's validation). The shapes are
 * the service's own (src/contract/), so the two cannot drift apart.
 */

/**
 * A schema as a tool advertises it in tools/list, which a client puts before the model on every turn (docs/mcp.md
 * "MCP": the tool budget): without the JSON Schema draft URL and zod's ±2^53 bounds of every integer, and, for
 * a result, without descriptions (the tool's description says what it returns) or `additionalProperties`
 * (what the server sends is parsed with the schema first, so it never has another property); for arguments,
 * without length and count bounds or `additionalProperties`. Validation is zod's own: what breaks them is still
 * refused, field by field.
 */
function leanSchema<S extends z.ZodType>(
  schema: S,
  result: boolean,
): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const standard = schema['~standard'];
  const libraryOptions = {
    metadata: result ? z.registry() : z.globalRegistry,
    override: ({ jsonSchema }: { jsonSchema: z.core.JSONSchema.BaseSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (result && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      // Arguments: no length or count bounds and no `additionalProperties` either; zod still refuses what breaks
      // them, naming the field, and the seven tools stay within the budget.
      if (!result) {
        delete jsonSchema.additionalProperties;
        delete jsonSchema.minLength;
        delete jsonSchema.maxLength;
        delete jsonSchema.minItems;
        delete jsonSchema.maxItems;
      }
    },
  };
  const lean =
    (io: 'input' | 'output') =>
    (options: { readonly target: string }): Record<string, unknown> => {
      const { $schema: _draft, ...json } = standard.jsonSchema[io]({
        target: options.target,
        libraryOptions,
      });
      return json;
    };
  return { '~standard': { ...standard, jsonSchema: { input: lean('input'), output: lean('output') } } };
}

/** A tool's arguments, described for the model. */
export function inputSchema<S extends z.ZodType>(schema: S): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  return leanSchema(schema, false);
}

/** Only the knowledge section of the brand, as search_brand_knowledge reads it. */
export const brandKnowledgeSchema = brandContextSchema.pick({ knowledge: true });

/**
 * A campaign as the tools answer it: without `brand_version`, which says nothing a model acts on and would
 * cost tokens in every tool listing (docs/mcp.md "MCP": the tool budget).
 */
export const mcpCampaignSchema = campaignSchema.omit({ brand_version: true });
export const mcpCampaignPageSchema = campaignPageSchema.extend({
  campaigns: z.array(campaignSummarySchema.omit({ brand_version: true })),
});
export type McpCampaign = z.output<typeof mcpCampaignSchema>;
export type McpCampaignPage = z.output<typeof mcpCampaignPageSchema>;

/** The campaign tools' results: a slim schema a client can check them against. */
export const campaignOutput = leanSchema(mcpCampaignSchema, true);
export const campaignListOutput = leanSchema(mcpCampaignPageSchema, true);

/**
 * RFC 9457 problem+json of the service (docs/reading-brand-context.md "Errors"): tolerant of missing text, since only its text reaches
 * the model, but the code must be one of the service's (an answer with another is not the service's).
 */
export const problemSchema = serviceProblemSchema.partial().required({ code: true });

export type { Campaign };
export type Problem = z.output<typeof problemSchema>;
