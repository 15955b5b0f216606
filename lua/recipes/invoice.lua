-- Extracts an invoice from its text (an email, an OCR'd PDF). The schema is
-- the one Pydantic emits for the model in schemas/invoice.schema.json.
-- Business rule: the total must equal the items' sum, with tax.
--   coax run lua/recipes/invoice.lua --input lua/recipes/invoice.input.txt
-- With no agent named (and no provider's key set) the recorded transcript
-- invoice.replies.jsonl plays: a fenced reply with broken syntax and a
-- wrong total (on_submit rejects it), then the total as a string "$231.00", then
-- the invoice.
return {
  name = "invoice",
  description = "An invoice: number, dates, vendor, billing address, line items, total.",
  schema = "../../schemas/invoice.schema.json",
  system = "You extract structured data from business documents. You reply with JSON only.",
  prompt = "Extract the invoice in the document below. Amounts are numbers, dates are YYYY-MM-DD.\n\n"
    .. "Document:\n{{input}}",
  max_attempts = 3,
  on_submit = function(invoice)
    local sum = 0
    for _, item in ipairs(invoice.items) do
      sum = sum + item.quantity * item.unit_price * (1 + (item.tax_rate or 0))
    end
    if math.abs(sum - invoice.total) > 0.005 then
      return false, string.format("total %.2f does not equal the sum of the items with tax, %.2f",
        invoice.total, sum)
    end
    return true
  end,
}
