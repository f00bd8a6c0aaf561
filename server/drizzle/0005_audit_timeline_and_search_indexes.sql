DROP INDEX "audit_target_idx";--> statement-breakpoint
CREATE INDEX "audit_actor_email_idx" ON "audit_logs" USING btree ("actor_email","actor_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_user_summary_idx" ON "audit_logs" USING gin ("summary" jsonb_path_ops) WHERE "audit_logs"."target_type" = 'user';--> statement-breakpoint
CREATE INDEX "audit_target_idx" ON "audit_logs" USING btree ("target_type","target_id","created_at");