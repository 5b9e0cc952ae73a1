"""One account per e-mail address, compared case-insensitively, for accounts that have one.

A partial unique index on LOWER(email) WHERE email <> '' on auth.User's table (Django's own model, so
the index is created here with SQL both PostgreSQL and SQLite understand). Accounts without an
e-mail address are not constrained.

If existing accounts already share an address, the migration stops before creating the index and
lists every clash (address → usernames); it never deletes or rewrites an account. Resolve them (e.g.
clear or change the e-mail of the duplicates in the admin) and run ``migrate`` again.
"""

from django.db import migrations

INDEX = "quizzes_user_email_ci_uniq"


def _table(apps):
    return apps.get_model("auth", "User")._meta.db_table


def create_index(apps, schema_editor):
    from django.db.models import Count
    from django.db.models.functions import Lower

    User = apps.get_model("auth", "User")
    db = schema_editor.connection.alias
    clashes = (
        User.objects.using(db)
        .exclude(email="")
        .annotate(address=Lower("email"))
        .values("address")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .order_by("address")
    )
    if clashes:
        lines = []
        for row in clashes:
            names = User.objects.using(db).filter(email__iexact=row["address"]).order_by("username")
            lines.append(f"  {row['address']}: " + ", ".join(names.values_list("username", flat=True)))
        raise RuntimeError(
            "Cannot make e-mail addresses unique: these addresses are used by more than one account "
            "(compared case-insensitively). Nothing was changed. Give each account its own address or "
            "clear the duplicates' e-mail (e.g. in the admin), then run migrate again:\n" + "\n".join(lines)
        )
    quote = schema_editor.quote_name
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {quote(INDEX)} ON {quote(_table(apps))} (LOWER({quote('email')})) "
        f"WHERE {quote('email')} <> ''"
    )


def drop_index(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("quizzes", "0006_template_version_constraints"),
    ]

    operations = [migrations.RunPython(create_index, drop_index, elidable=False)]
