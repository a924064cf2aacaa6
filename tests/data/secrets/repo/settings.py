"""Django settings for the shop project."""
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

# SECURITY WARNING: keep the secret key used in production secret!
SECRET_KEY = 'django-insecure-xil12x#sh5d#74iu_)*24^wxn63a()j(+5jope=!'

DEBUG = False
ALLOWED_HOSTS = ['shop.example.com']

DATABASES = {
    'default': {
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': 'shop',
        'USER': 'shop',
        'PASSWORD': 'Dj4ngo-tFJQuXOLQG',
        'HOST': 'db.internal',
        'PORT': '5432',
    }
}

EMAIL_HOST = 'smtp.example.com'
EMAIL_HOST_USER = 'alerts'
EMAIL_HOST_PASSWORD = 'erUP6UgVtRmfyQK9'

AWS_ACCESS_KEY_ID = 'AKIAAB5422CT6EXAMPLE'
AWS_SECRET_ACCESS_KEY = 'woxM/WwMeZ4swstab2+lxwX6mRcVIpwQl2qjqDTM'
AWS_STORAGE_BUCKET_NAME = 'shop-media'
