CREATE TYPE "public"."revision_kind" AS ENUM('edit', 'restore', 'copy');--> statement-breakpoint
CREATE TYPE "public"."version_kind" AS ENUM('submitted', 'under_review', 'approved', 'returned', 'copied');--> statement-breakpoint
CREATE TABLE "answer_revisions" (
	"id" text PRIMARY KEY NOT NULL,
	"form_id" text NOT NULL,
	"step_key" text NOT NULL,
	"question_id" text NOT NULL,
	"kind" "revision_kind" NOT NULL,
	"author_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"step_revision" integer NOT NULL,
	"restored_from_id" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "answer_revisions_id_hex" CHECK ("answer_revisions"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
CREATE TABLE "collab_updates" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "collab_updates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"update" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"form_id" text NOT NULL,
	"kind" "version_kind" NOT NULL,
	"actor_id" text,
	"actor_name" text NOT NULL,
	"comment" text,
	"steps" jsonb NOT NULL,
	"attestation" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plan_versions_id_hex" CHECK ("plan_versions"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
ALTER TABLE "answer_revisions" ADD CONSTRAINT "answer_revisions_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_versions" ADD CONSTRAINT "plan_versions_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "answer_revisions_question_idx" ON "answer_revisions" USING btree ("form_id","step_key","question_id","step_revision");--> statement-breakpoint
CREATE INDEX "answer_revisions_plan_idx" ON "answer_revisions" USING btree ("form_id","updated_at");--> statement-breakpoint
CREATE INDEX "collab_updates_name_idx" ON "collab_updates" USING btree ("name","id");--> statement-breakpoint
CREATE INDEX "plan_versions_plan_idx" ON "plan_versions" USING btree ("form_id","created_at");