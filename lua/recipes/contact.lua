-- Extracts a contact card from an email signature. Shows a custom feedback
-- template and the "last" strategy.
--   coax run lua/recipes/contact.lua --input lua/recipes/contact.input.txt
-- With no agent named (and no provider's key set) the recorded transcript
-- contact.replies.jsonl plays: a fenced reply with broken syntax and a
-- phone number not in E.164, then the number as a JSON number, then the card.
return {
  name = "contact",
  description = "A contact card: name, email, phones, company, tags.",
  schema = "../../schemas/contact.schema.json",
  prompt = function(input)
    return "Extract the contact card from this email signature. Phone numbers in E.164 (+15551234567).\n\n"
      .. input
  end,
  max_attempts = 3,
  strategy = "last",
  feedback = {
    validation = "That is not quite right ({{attempt}}/{{max_attempts}}):\n{{errors}}\n"
      .. "Send the whole corrected card as JSON.",
  },
}
