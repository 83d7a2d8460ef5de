import { t } from "elysia";
import { HttpUrl } from "../bots/model.ts";
import type { FormSubmission as FormInput } from "../../domain/intake.ts";

/** A form with more fields than this is not a contact form. */
export const MAX_FORM_FIELDS = 100;
/** One field's value; long free-text answers still fit. */
export const MAX_FIELD_VALUE_LENGTH = 4000;
export const MAX_FORM_TEXT_LENGTH = 256;

const Short = t.String({ maxLength: MAX_FORM_TEXT_LENGTH });
const FieldValue = t.Union([
  t.String({ maxLength: MAX_FIELD_VALUE_LENGTH }),
  t.Array(t.String({ maxLength: MAX_FIELD_VALUE_LENGTH }), { maxItems: MAX_FORM_FIELDS }),
  t.Null(),
]);

export const FormSubmission = t.Object(
  {
    integration_key: t.String({ minLength: 1, maxLength: 256 }),
    site_url: t.Optional(HttpUrl),
    page_url: t.Optional(HttpUrl),
    form_id: t.Optional(Short),
    form_title: t.Optional(Short),
    contact_email: t.Optional(t.String({ format: "email", maxLength: 254 })),
    contact_phone: t.Optional(t.String({ maxLength: 64 })),
    contact_name: t.Optional(Short),
    fields: t.Optional(t.Record(t.String({ maxLength: MAX_FORM_TEXT_LENGTH }), FieldValue, { maxProperties: MAX_FORM_FIELDS })),
  },
  { title: "FormSubmission", examples: [{"integration_key": "ik_8Tv4Wx6Yz2Ab9Cd3", "page_url": "https://shop.example.com/contact", "form_title": "Contact us", "contact_email": "ada@example.com", "contact_name": "Ada", "fields": {"message": "Please call me back"}}] },
);
export type FormSubmission = typeof FormSubmission.static;

// The domain takes plain TS types: what is validated here must stay acceptable there.
const acceptedByDomain: FormSubmission extends FormInput ? true : false = true;
void acceptedByDomain;
