CREATE TYPE "public"."bank_status" AS ENUM('draft', 'published', 'archived');--> statement-breakpoint
CREATE TYPE "public"."comment_status" AS ENUM('open', 'read', 'fixed');--> statement-breakpoint
CREATE TYPE "public"."plan_status" AS ENUM('draft', 'submitted', 'under_review', 'approved', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."share_permission" AS ENUM('view', 'edit');--> statement-breakpoint
CREATE TABLE "audit_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"actor_id" text,
	"actor_email" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"summary" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_logs_id_hex" CHECK ("audit_logs"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
CREATE TABLE "client_errors" (
	"id" text PRIMARY KEY NOT NULL,
	"message" text NOT NULL,
	"stack" text,
	"url" text,
	"user_agent" text,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collab_documents" (
	"name" text PRIMARY KEY NOT NULL,
	"form_id" text NOT NULL,
	"state" "bytea" NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" text PRIMARY KEY NOT NULL,
	"form_id" text NOT NULL,
	"step_key" text,
	"question_id" text,
	"comment" text NOT NULL,
	"author_id" text,
	"author_name" text NOT NULL,
	"status" "comment_status" DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comments_id_hex" CHECK ("comments"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"form_id" text,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone,
	CONSTRAINT "notifications_id_hex" CHECK ("notifications"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
CREATE TABLE "plan_shares" (
	"form_id" text NOT NULL,
	"user_id" text NOT NULL,
	"permission" "share_permission" NOT NULL,
	"sections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"shared_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plan_shares_form_id_user_id_pk" PRIMARY KEY("form_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "plan_steps" (
	"form_id" text NOT NULL,
	"step_key" text NOT NULL,
	"completed" boolean DEFAULT false NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"field_revisions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"revision_count" integer DEFAULT 0 NOT NULL,
	"last_updated" timestamp with time zone,
	"updated_by" text,
	CONSTRAINT "plan_steps_form_id_step_key_pk" PRIMARY KEY("form_id","step_key"),
	CONSTRAINT "plan_steps_revision_nonnegative" CHECK ("plan_steps"."revision_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"id" text PRIMARY KEY NOT NULL,
	"school_name" text NOT NULL,
	"school_year" text NOT NULL,
	"status" "plan_status" DEFAULT 'draft' NOT NULL,
	"user_id" text,
	"principal_email" text,
	"assigned_to" text,
	"shared_with_emails" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"needs_update" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attestation" jsonb,
	"transfer_history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"notification_sent" boolean DEFAULT false NOT NULL,
	"allow_edits_when_archived" boolean DEFAULT false NOT NULL,
	"question_bank_version" integer,
	"copied_from_id" text,
	"review_comment" text,
	"reviewed_by" text,
	"reviewed_at" timestamp with time zone,
	"submitted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plans_school_year_label" CHECK ("plans"."school_year" ~ '^[0-9]{4}-[0-9]{4}$'),
	CONSTRAINT "plans_id_hex" CHECK ("plans"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
CREATE TABLE "question_bank_versions" (
	"version" integer PRIMARY KEY NOT NULL,
	"status" "bank_status" NOT NULL,
	"steps" jsonb NOT NULL,
	"school_year" text,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "school_year_settings" (
	"school_year" text PRIMARY KEY NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"question_bank_version" integer,
	"deadlines" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"district_goals" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"term_start" text NOT NULL,
	"term_end" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "school_year_label" CHECK ("school_year_settings"."school_year" ~ '^[0-9]{4}-[0-9]{4}$')
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"preview_user_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"level" integer NOT NULL,
	"school_name" text DEFAULT '' NOT NULL,
	"title" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_demo" boolean DEFAULT false NOT NULL,
	"permissions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_lowercase" CHECK ("users"."email" = lower("users"."email")),
	CONSTRAINT "users_level_range" CHECK ("users"."level" between 1 and 5),
	CONSTRAINT "users_id_hex" CHECK ("users"."id" ~ '^[0-9a-f]{24}$')
);
--> statement-breakpoint
ALTER TABLE "collab_documents" ADD CONSTRAINT "collab_documents_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_shares" ADD CONSTRAINT "plan_shares_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_shares" ADD CONSTRAINT "plan_shares_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plan_steps" ADD CONSTRAINT "plan_steps_form_id_plans_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plans" ADD CONSTRAINT "plans_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "plans" ADD CONSTRAINT "plans_question_bank_version_question_bank_versions_version_fk" FOREIGN KEY ("question_bank_version") REFERENCES "public"."question_bank_versions"("version") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "school_year_settings" ADD CONSTRAINT "school_year_settings_question_bank_version_question_bank_versions_version_fk" FOREIGN KEY ("question_bank_version") REFERENCES "public"."question_bank_versions"("version") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_preview_user_id_users_id_fk" FOREIGN KEY ("preview_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_created_idx" ON "audit_logs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "audit_actor_idx" ON "audit_logs" USING btree ("actor_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_target_idx" ON "audit_logs" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE INDEX "comments_form_idx" ON "comments" USING btree ("form_id");--> statement-breakpoint
CREATE INDEX "notifications_user_idx" ON "notifications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "plan_shares_user_idx" ON "plan_shares" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "plans_school_year_unique" ON "plans" USING btree ("school_name","school_year");--> statement-breakpoint
CREATE INDEX "plans_year_idx" ON "plans" USING btree ("school_year");--> statement-breakpoint
CREATE INDEX "plans_owner_idx" ON "plans" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "plans_principal_idx" ON "plans" USING btree ("principal_email");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_one_published" ON "question_bank_versions" USING btree ("status") WHERE "question_bank_versions"."status" = 'published';--> statement-breakpoint
CREATE UNIQUE INDEX "bank_one_draft" ON "question_bank_versions" USING btree ("status") WHERE "question_bank_versions"."status" = 'draft';--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "users_school_idx" ON "users" USING btree ("school_name");