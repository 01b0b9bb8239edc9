import { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../core/errors.js';

/** Every code a problem can carry (docs/reading-brand-context.md "Errors"); src/core/errors.ts defines each one. */
export const PROBLEM_CODES = Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]];

/** The body of every error answer: RFC 9457 problem details, plus the service's code and advice. */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(PROBLEM_CODES),
    detail: z.string(),
    resolution: z.string(),
    request_id: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });
export type Problem = z.output<typeof problemSchema>;
