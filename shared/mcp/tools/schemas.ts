/** `get_omh_schema`: what a reading type holds, from the schemas themselves (../reading-types.ts). */
import * as z from 'zod';
import { describeSchema, resolveReadingType } from '../reading-types';
import { readingTypeField } from '../fields';
import { defineTool } from '../tool';

const codingShape = z.object({ system: z.string(), code: z.string(), display: z.string() });

export const schemaDescriptionShape = z.object({
  code: z.string(),
  display: z.string(),
  namespace: z.string(),
  name: z.string(),
  version: z.string(),
  uri: z.string(),
  category: z.string().nullable(),
  standardCoding: codingShape.nullable(),
  members: z.array(z.object({ name: z.string(), required: z.boolean(), kind: z.string() })),
  values: z.array(
    z.object({
      path: z.string(),
      principal: z.boolean(),
      units: z.array(z.string()).nullable(),
      coding: codingShape,
      variants: z.array(z.object({ specimen: z.string().nullable(), units: z.array(z.string()), coding: codingShape })),
    }),
  ),
});

export const getOmhSchemaTool = defineTool({
  name: 'get_omh_schema',
  title: 'Describe a reading type',
  description:
    "What readings of a type hold (its Open mHealth or IEEE schema): the body's members, which are required, the values with their allowed units and standard codes (LOINC, SNOMED CT), and which value is the reading's principal one. The same as the omh://schema/<code> resource.",
  input: { readingType: readingTypeField },
  output: { schema: schemaDescriptionShape },
  reads: [],
  async run({ readingType }) {
    const schema = describeSchema(resolveReadingType(readingType));
    const values = schema.values.flatMap((v) => [
      `- ${v.path}${v.principal ? ' (principal)' : ''}: ${v.units?.join(', ') ?? 'any unit'}; ${v.coding.system}|${v.coding.code} ${v.coding.display}${v.variants.length > 0 ? ', or by unit and specimen:' : ''}`,
      ...v.variants.map((variant) => `  - ${variant.units.join(', ')}, ${variant.specimen ?? 'no or another specimen'}: ${variant.coding.system}|${variant.coding.code} ${variant.coding.display}`),
    ]);
    return {
      structured: { schema },
      text: [`${schema.code} (${schema.display})${schema.standardCoding ? `, ${schema.standardCoding.system}|${schema.standardCoding.code}` : ''}`, `Members: ${schema.members.map((m) => `${m.name}${m.required ? '*' : ''}`).join(', ')} (* required)`, 'Values:', ...values].join('\n'),
    };
  },
});
