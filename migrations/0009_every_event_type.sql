-- An endpoint created without event_types takes every type, present and future: its list is stored as ["*"].
-- Endpoints made before this took the full list of the day (every type but webhook.test), which is what "every type"
-- meant then: they take every type from now on.
UPDATE `webhook_endpoints` SET `event_types` = '["*"]'
WHERE `event_types` = '["order.created","order.updated","order.processing","order.numbers_allocated","order.fulfilled","order.cancelled","kyc.submitted","kyc.updated","kyc.under_review","kyc.approved","kyc.rejected","kyc.document_uploaded","kyc.document_deleted"]';
