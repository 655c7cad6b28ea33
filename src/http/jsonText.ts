// The JSON text a request body was parsed from, kept beside the parsed value (src/plugins/contentTypes.ts)
// for as long as that value lives. A route whose body passed its schema's fast check holds the very
// value parsed (src/plugins/validation.ts), so the text is found; a body the schema copied is another
// object, and has none.
const texts = new WeakMap<object, string>();

/** Notes `text` as the JSON text `value` was parsed from. */
export function keepJsonText(value: object, text: string): void {
  texts.set(value, text);
}

/** The JSON text `value` was parsed from, when it is a request body taken as sent. */
export const jsonTextOf = (value: object): string | undefined => texts.get(value);
