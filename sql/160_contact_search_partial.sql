-- Most contacts carry no name, e-mail or phone (a widget visitor, an API chat): their NULLs
-- were still indexed by the three trigram indexes, three GIN entries per new contact for
-- nothing. Search matches with ILIKE, which is never true for NULL, so the planner uses
-- the partial indexes for the same queries.
drop index contacts_name_trgm;
drop index contacts_email_trgm;
drop index contacts_phone_trgm;
create index contacts_name_trgm on contacts using gin (name gin_trgm_ops) where name is not null;
create index contacts_email_trgm on contacts using gin (email gin_trgm_ops) where email is not null;
create index contacts_phone_trgm on contacts using gin (phone gin_trgm_ops) where phone is not null;
