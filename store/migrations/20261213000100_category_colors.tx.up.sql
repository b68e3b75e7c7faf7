-- Every default category gets a colour (finance.defaultCategoryColors), so
-- charts tell categories apart from the first expense. New users get them
-- when their categories are created; this gives the same colours to the
-- default categories of users created before, where no colour was chosen.
-- A colour the person set is kept. updated_at stays: the person changed
-- nothing.
UPDATE categories SET color = CASE name_key
    WHEN 'food & dining' THEN '#F97316'
    WHEN 'groceries' THEN '#22C55E'
    WHEN 'transportation' THEN '#3B82F6'
    WHEN 'utilities' THEN '#EAB308'
    WHEN 'rent & housing' THEN '#8B5CF6'
    WHEN 'shopping' THEN '#EC4899'
    WHEN 'health & medical' THEN '#EF4444'
    WHEN 'education' THEN '#0EA5E9'
    WHEN 'entertainment' THEN '#A855F7'
    WHEN 'personal care' THEN '#D946EF'
    WHEN 'travel' THEN '#14B8A6'
    WHEN 'insurance' THEN '#64748B'
    WHEN 'subscriptions' THEN '#6366F1'
    WHEN 'gifts & donations' THEN '#F43F5E'
    WHEN 'miscellaneous' THEN '#78716C'
    WHEN 'card fees & interest' THEN '#B45309'
    WHEN 'loan interest' THEN '#BE123C'
    END
WHERE kind = 'expense' AND color IS NULL AND name_key IN ('food & dining', 'groceries', 'transportation', 'utilities',
    'rent & housing', 'shopping', 'health & medical', 'education', 'entertainment', 'personal care', 'travel', 'insurance',
    'subscriptions', 'gifts & donations', 'miscellaneous', 'card fees & interest', 'loan interest');
--bun:split
UPDATE categories SET color = CASE name_key
    WHEN 'salary' THEN '#16A34A'
    WHEN 'business' THEN '#0D9488'
    WHEN 'freelance' THEN '#2563EB'
    WHEN 'bonus' THEN '#CA8A04'
    WHEN 'interest & dividends' THEN '#7C3AED'
    WHEN 'gifts' THEN '#DB2777'
    WHEN 'other income' THEN '#6B7280'
    END
WHERE kind = 'income' AND color IS NULL AND name_key IN ('salary', 'business', 'freelance', 'bonus', 'interest & dividends',
    'gifts', 'other income');
