-- Extracts a contact card from an email signature. Shows a custom feedback
-- template, the "last" strategy and on_event.
--   coax run lua/recipes/contact.lua --input lua/recipes/contact.input.txt \
--     --replay lua/recipes/contact.replies.jsonl
return {
  name = "contact",
  description = "A contact card: name, email, phones, company, tags.",
  schema = "../../schemas/contact.schema.json",
  prompt = function(input)
    return "Extract the contact card from this email signature. Phone numbers in E.164 (+15551234567).\n\n"
      .. input
  end,
  max_attempts = 2,
  strategy = "last",
  feedback = {
    validation = "That is not quite right ({{attempt}}/{{max_attempts}}):\n{{errors}}\n"
      .. "Send the whole corrected card as JSON.",
  },
}
