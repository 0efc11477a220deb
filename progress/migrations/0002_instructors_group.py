from django.contrib.auth.management import create_permissions
from django.db import migrations

INSTRUCTORS = "Instructors"  # progress.accounts.models.INSTRUCTORS_GROUP


def create_instructors_group(apps, schema_editor):
    # Permissions are normally created after all migrations; this group needs its own now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=INSTRUCTORS)
    group.permissions.add(
        Permission.objects.get(content_type__app_label="progress", codename="instruct")
    )


def remove_instructors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=INSTRUCTORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("progress", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_instructors_group, remove_instructors_group)]
